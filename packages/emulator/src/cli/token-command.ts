/**
 * `cms-emulator token create NAME --permissions LIST --expires DURATION`: a service token made on a
 * running emulator the way the service's command-line client makes one (a name, a comma-separated
 * permission list, an expiry such as `30d`; here also a scope and a plan), through the control API.
 * The token goes to stdout, alone and once, so that `TOKEN=$(cms-emulator token create …)` works;
 * what it is goes to stderr.
 */
import { parseArgs } from "node:util";
import { PERMISSIONS, PLANS, parseDuration } from "../http/auth";
import { controlClient } from "../control/client";
import type { AddedToken, Permission, Plan } from "../types";

const DEFAULT_URL = "http://127.0.0.1:8787";

export const TOKEN_USAGE = `Usage: cms-emulator token create NAME --permissions LIST --expires DURATION [options]

Creates a service token on a running emulator, as the service's command-line client does,
and prints it once, alone on stdout.

  NAME                      what the token is called
  --permissions LIST        comma-separated, from read, write, admin (e.g. read,write)
  --expires DURATION        a whole number of days, hours, minutes or seconds (30d, 12h,
                            90m, 45s), on the emulator's clock; then it answers unauthorized
  --scope SCOPE             *, cluster:* or cluster:<cluster id> (default *)
  --plan PLAN               community, pro or enterprise (default enterprise)
  --url URL                 the emulator (default ${DEFAULT_URL})
  --admin-token TOKEN       the emulator's admin token (env CMS_EMULATOR_ADMIN_TOKEN)
  -h, --help                show this help
`;

/** A token to create, checked. */
export interface TokenRequest {
  url: string;
  adminToken: string;
  name: string;
  permissions: Permission[];
  expiresIn: string;
  scope: string;
  plan: Plan;
}

/** Parses `token create …` (argv after `token`); throws Error naming the flag or argument. */
export function parseTokenCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): TokenRequest | "help" {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      permissions: { type: "string" },
      expires: { type: "string" },
      scope: { type: "string" },
      plan: { type: "string" },
      url: { type: "string" },
      "admin-token": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  const [command, name, ...extra] = positionals;
  if (command !== "create") throw new Error(`unknown token command ${JSON.stringify(command ?? "")}; the one command is: token create`);
  if (name === undefined || name.trim() === "") throw new Error("token create needs the token's NAME");
  if (extra.length > 0) throw new Error(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (values.permissions === undefined) throw new Error("--permissions is required: a comma-separated list of read, write, admin");
  const permissions = values.permissions.split(",").map((p) => p.trim());
  for (const p of permissions) {
    if (!PERMISSIONS.includes(p as Permission)) {
      throw new Error(`--permissions must be a comma-separated list of read, write, admin; got ${JSON.stringify(p)}`);
    }
  }
  if (values.expires === undefined) throw new Error("--expires is required: a duration such as 30d, 12h, 90m or 45s");
  if (parseDuration(values.expires) === undefined) {
    throw new Error(
      `--expires must be a whole number of days, hours, minutes or seconds, e.g. 30d, 12h, 90m, 45s; got ${JSON.stringify(values.expires)}`,
    );
  }
  const plan = values.plan ?? "enterprise";
  if (!PLANS.includes(plan as Plan)) throw new Error(`--plan must be one of ${PLANS.join(", ")}`);
  const adminToken = values["admin-token"] ?? env.CMS_EMULATOR_ADMIN_TOKEN;
  if (!adminToken) throw new Error("the emulator's admin token is needed: --admin-token TOKEN or CMS_EMULATOR_ADMIN_TOKEN");
  let url = values.url ?? DEFAULT_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http");
    url = parsed.origin;
  } catch {
    throw new Error(`--url must be the emulator's http:// URL, e.g. ${DEFAULT_URL}`);
  }
  return {
    url,
    adminToken,
    name,
    permissions: [...new Set(permissions as Permission[])],
    expiresIn: values.expires,
    scope: values.scope ?? "*",
    plan: plan as Plan,
  };
}

/** Creates the token; resolves to what the emulator accepted, checked. */
export async function createToken(req: TokenRequest): Promise<AddedToken> {
  let added: AddedToken;
  try {
    added = await controlClient(req.url, req.adminToken).addToken({
      name: req.name,
      permissions: req.permissions,
      scope: req.scope,
      plan: req.plan,
      expires_in: req.expiresIn,
    });
  } catch (e) {
    // fetch's own failure (refused, no route): the reason is in its cause.
    const cause = (e as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause;
    if (cause) {
      const code = cause.code ?? cause.errors?.[0]?.code ?? cause.message ?? "no answer";
      throw new Error(`cannot reach the emulator at ${req.url} (${code}): is it running there?`);
    }
    throw e;
  }
  if (typeof added?.token !== "string" || added.token === "") {
    throw new Error(`the emulator at ${req.url} answered without a token: is it an emulator of this version?`);
  }
  return added;
}

/** Runs the command; the process's exit status is the result (2: bad arguments, 1: the emulator refused or was not reached). */
export async function runTokenCommand(argv: string[]): Promise<number> {
  let req: TokenRequest | "help";
  try {
    req = parseTokenCommand(argv);
  } catch (e) {
    process.stderr.write(`cms-emulator token: ${(e as Error).message}\n\n${TOKEN_USAGE}`);
    return 2;
  }
  if (req === "help") {
    process.stdout.write(TOKEN_USAGE);
    return 0;
  }
  try {
    const t = await createToken(req);
    process.stdout.write(`${t.token}\n`);
    const expires = t.expires_at ? `expires ${t.expires_at}` : "never expires";
    process.stderr.write(
      `token "${req.name}" created on ${req.url}: ${t.permissions.join(", ")}; scope ${t.scope}; plan ${t.plan}; ${expires}. ` +
        "It is printed only this once.\n",
    );
    return 0;
  } catch (e) {
    process.stderr.write(`cms-emulator token create: ${(e as Error).message}\n`);
    return 1;
  }
}
