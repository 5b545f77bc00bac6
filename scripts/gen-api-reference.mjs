#!/usr/bin/env node
// @ts-check
/**
 * scripts/gen-api-reference.mjs: write docs/api-reference.md, the API reference of the native
 * plugin, from sdk/schema.json (`npm run gen:api-reference`; `npm run gen:sdk` runs it too):
 * the provider's configuration, the resource, the functions and the types, each property with
 * its type, whether it is required and whether it is a secret, and its description.
 * `--check` writes nothing and fails when the committed file is not what the schema generates
 * (test/e2e/docs/api-reference-schema.test.ts runs the same comparison).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SCHEMA = "sdk/schema.json";
const OUT = "docs/api-reference.md";

/**
 * @typedef {{ type?: string, $ref?: string, items?: Property, description?: string, secret?: boolean }} Property
 * @typedef {{ description?: string, type?: string, properties?: Record<string, Property>, required?: string[] }} ObjectType
 * @typedef {{ description?: string, inputProperties?: Record<string, Property>, requiredInputs?: string[], properties?: Record<string, Property>, required?: string[] }} Resource
 * @typedef {{ description?: string, inputs?: ObjectType, outputs?: ObjectType }} PulumiFunction
 * @typedef {{
 *   name: string, displayName?: string, version?: string, description?: string, repository?: string,
 *   pluginDownloadURL?: string,
 *   config?: { variables?: Record<string, Property> },
 *   provider?: Resource,
 *   resources?: Record<string, Resource>,
 *   functions?: Record<string, PulumiFunction>,
 *   types?: Record<string, ObjectType>,
 *   language?: { nodejs?: { packageName?: string }, go?: { importBasePath?: string } },
 * }} Schema
 */

/** The last part of a token: `cms:index:Cluster` -> `Cluster`. */
const shortName = (/** @type {string} */ token) => token.split(":").pop() ?? token;

/** The anchor GitHub gives a heading made of one word. */
const anchor = (/** @type {string} */ heading) => heading.toLowerCase().replace(/[^a-z0-9_-]/g, "");

/** A table cell: one line, its pipes escaped. */
const cell = (/** @type {string | undefined} */ text) => (text ?? "").replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");

const upperFirst = (/** @type {string} */ s) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A property's type, in the schema's terms; a named type links to its section.
 *
 * @param {Property} p
 * @returns {string}
 */
function typeOf(p) {
  if (p.$ref) {
    const name = shortName(p.$ref);
    return `[${name}](#${anchor(name)})`;
  }
  if (p.type === "array" && p.items) return `${typeOf(p.items)}[]`;
  return `\`${p.type ?? "any"}\``;
}

/**
 * A table of properties: name, type, required, secret, description.
 *
 * @param {Record<string, Property> | undefined} properties
 * @param {readonly string[]} required
 * @param {string} requiredWord what "required" means in this table (an input must be given; an output is always set)
 * @returns {string[]}
 */
function propertyTable(properties, required, requiredWord) {
  const entries = Object.entries(properties ?? {});
  if (entries.length === 0) return ["None.", ""];
  return [
    `| Name | Type | ${requiredWord} | Secret | Description |`,
    "|---|---|---|---|---|",
    ...entries.map(
      ([name, p]) =>
        `| \`${name}\` | ${typeOf(p)} | ${required.includes(name) ? "yes" : ""} | ${p.secret ? "**secret**" : ""} | ${cell(p.description)} |`,
    ),
    "",
  ];
}

/**
 * The Go name of a function, as Pulumi's Go generator names it: `getX` is `LookupX` when the
 * package has a resource `X` (the Go SDK's `GetX` reads that resource by id), else `GetX`.
 *
 * @param {string} fn
 * @param {readonly string[]} resources
 */
function goFunctionName(fn, resources) {
  const lookup = /^get(.+)$/.exec(fn);
  return lookup && resources.includes(lookup[1]) ? `Lookup${lookup[1]}` : upperFirst(fn);
}

/**
 * One resource, function or type: its heading, its introduction, then its tables, each under its
 * own heading when it has one.
 *
 * @param {string} name
 * @param {string} intro
 * @param {Array<[string | undefined, string[]]>} tables
 * @returns {string[]}
 */
function entry(name, intro, tables) {
  return [`### ${name}`, "", intro, "", ...tables.flatMap(([title, lines]) => (title ? [`#### ${title}`, "", ...lines] : lines))];
}

/**
 * docs/api-reference.md for `schema`.
 *
 * @param {Schema} schema
 * @returns {string}
 */
export function apiReference(schema) {
  const pkg = schema.name;
  const nodePackage = schema.language?.nodejs?.packageName ?? `@pulumi/${pkg}`;
  const goPackage = schema.language?.go?.importBasePath ?? pkg;
  const resources = Object.keys(schema.resources ?? {}).map(shortName);
  /** @type {string[]} */
  const out = [
    "# API reference",
    "",
    `<!-- Generated from ${SCHEMA} by scripts/gen-api-reference.mjs (npm run gen:api-reference): edit the schema, not this file. -->`,
    "",
    `The native plugin's schema, package \`${pkg}\`${schema.version ? ` version ${schema.version}` : ""}${schema.displayName ? ` (${schema.displayName})` : ""}: ${schema.description ?? ""}`,
    `Each resource and function below is named by its token in YAML, and from \`${nodePackage}\` in`,
    `TypeScript and JavaScript and \`${goPackage}\` in Go. What the dynamic \`Cluster\` of \`pulumi-cms\``,
    "adds, and what each operation does with these inputs: [The Cluster resource and the functions](cluster.md).",
    "",
    "- [Provider configuration](#provider-configuration)",
    `- Resources: ${resources.map((r) => `[${r}](#${anchor(r)})`).join(", ")}`,
    `- Functions: ${Object.keys(schema.functions ?? {})
      .map(shortName)
      .map((f) => `[${f}](#${anchor(f)})`)
      .join(", ")}`,
    `- Types: ${Object.keys(schema.types ?? {})
      .map(shortName)
      .map((t) => `[${t}](#${anchor(t)})`)
      .join(", ")}`,
    "",
    "## Provider configuration",
    "",
    "The stack configuration keys (`pulumi config set`; a secret one with `--secret`):",
    "",
    "| Key | Type | Secret | Description |",
    "|---|---|---|---|",
    ...Object.entries(schema.config?.variables ?? {}).map(
      ([name, p]) => `| \`${pkg}:${name}\` | ${typeOf(p)} | ${p.secret ? "**secret**" : ""} | ${cell(p.description)} |`,
    ),
    "",
  ];
  if (schema.provider) {
    out.push(
      `An explicit provider, \`pulumi:providers:${pkg}\` (\`new Provider(...)\` in TypeScript, \`${pkg}.NewProvider\` in Go), takes them as inputs: ${schema.provider.description ?? ""}`,
      "",
      ...propertyTable(schema.provider.inputProperties, schema.provider.requiredInputs ?? [], "Required"),
    );
  }
  out.push("## Resources", "");
  for (const [token, resource] of Object.entries(schema.resources ?? {})) {
    const name = shortName(token);
    const usage = `\`new ${name}(name, args, opts)\` in TypeScript, \`${pkg}.New${name}(ctx, name, args, opts)\` in Go, \`type: ${token}\` in YAML`;
    out.push(
      ...entry(name, `\`${token}\`: ${usage}.\n\n${resource.description ?? ""}`, [
        ["Inputs", propertyTable(resource.inputProperties, resource.requiredInputs ?? [], "Required")],
        ["Outputs", ["Besides `id` and `urn`:", "", ...propertyTable(resource.properties, resource.required ?? [], "Always set")]],
      ]),
    );
  }
  out.push("## Functions", "");
  for (const [token, fn] of Object.entries(schema.functions ?? {})) {
    const name = shortName(token);
    const go = goFunctionName(name, resources);
    const usage = `\`${name}(args)\` and \`${name}Output(args)\` in TypeScript, \`${pkg}.${go}\` and \`${pkg}.${go}Output\` in Go, \`fn::invoke\` with \`function: ${token}\` in YAML`;
    out.push(
      ...entry(name, `\`${token}\`: ${usage}.\n\n${fn.description ?? ""}`, [
        ["Arguments", propertyTable(fn.inputs?.properties, fn.inputs?.required ?? [], "Required")],
        ["Result", propertyTable(fn.outputs?.properties, fn.outputs?.required ?? [], "Always set")],
      ]),
    );
  }
  out.push("## Types", "");
  for (const [token, type] of Object.entries(schema.types ?? {})) {
    out.push(
      ...entry(shortName(token), `\`${token}\`: ${type.description ?? ""}`, [
        [undefined, propertyTable(type.properties, type.required ?? [], "Always set")],
      ]),
    );
  }
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

/** The committed schema, read from the repository. */
export function committedSchema() {
  return /** @type {Schema} */ (JSON.parse(fs.readFileSync(path.join(ROOT, SCHEMA), "utf8")));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = apiReference(committedSchema());
  const file = path.join(ROOT, OUT);
  if (process.argv.includes("--check")) {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    if (committed !== text) {
      process.stderr.write(`${OUT} is not what ${SCHEMA} generates: run npm run gen:api-reference\n`);
      process.exit(1);
    }
    process.stderr.write(`${OUT} is what ${SCHEMA} generates\n`);
  } else {
    fs.writeFileSync(file, text);
    process.stderr.write(`wrote ${OUT}\n`);
  }
}
