/**
 * Random breaches of the wire contract, for property tests: a fast-check arbitrary of
 * {@link Violation}s and {@link violate}, which applies one to a good answer of the breaking service
 * (`breaking-service.ts`). Every violation yields an answer the contract refuses.
 */
import fc from "fast-check";
import { isClusterId, isNodeId } from "@pulumi-cms/contract";
import type { Reply } from "./breaking-service";

export type Violation =
  | { kind: "missing"; pick: number }
  | { kind: "wrongType"; pick: number; value: unknown }
  | { kind: "badId"; value: string }
  | { kind: "otherId" }
  | { kind: "notJson"; text: string }
  | { kind: "notObject"; value: unknown };

/** Violations; `token` is among the values a broken answer may carry (it must never show in a message). */
export function violations(token: string): fc.Arbitrary<Violation> {
  const anyJson = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 8 }),
    fc.array(fc.nat(), { maxLength: 2 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.nat(), { maxKeys: 2 }),
  );
  const badId = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom("../../admin", "cls_", "cls_a/b", "cls_%2e%2e", "cls_a?x=1", "node_1", "cls_ a", token),
    fc.string({ maxLength: 6 }).map((s) => `${token}${s}`),
    fc.string({ maxLength: 6 }).map((s) => `cls_${s}/..`),
  );
  return fc.oneof(
    fc.record({ kind: fc.constant("missing" as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant("wrongType" as const), pick: fc.nat(), value: anyJson }),
    fc.record({ kind: fc.constant("badId" as const), value: badId }),
    fc.constant({ kind: "otherId" as const }),
    fc.record({ kind: fc.constant("notJson" as const), text: fc.string({ maxLength: 20 }).map((s) => `<html>${s}${token}`) }),
    fc.record({
      kind: fc.constant("notObject" as const),
      value: fc.oneof(fc.array(fc.nat(), { maxLength: 3 }), fc.integer(), fc.constant(null), fc.boolean()),
    }),
  );
}

/**
 * `good` broken by `v`: an answer the contract refuses whatever `v` is. `asked`: the answer is
 * about an id the request named (a GET, PATCH or node), so another valid id breaks it too.
 */
export function violate(good: Reply, v: Violation, asked: boolean): Reply {
  if (typeof good.body === "string") return { ...good, body: brokenKubeconfig(good.body, v) };
  if (v.kind === "notJson") return { ...good, body: v.text };
  if (v.kind === "notObject") return { ...good, body: v.value };
  const body = structuredClone(good.body) as Record<string, unknown>;
  const items = body.items as Record<string, unknown>[] | undefined;
  const target = items?.[0] ?? body;
  const isNode = typeof target.cluster_id === "string";
  if (v.kind === "badId") {
    target.id = (isNode ? isNodeId(v.value) : isClusterId(v.value)) ? `${v.value}/..` : v.value;
    return { ...good, body };
  }
  if (v.kind === "otherId") {
    // A node names its cluster; an answer to a create or a listing may carry any id of the shape.
    if (isNode) target.cluster_id = "cls_00000000000000ff";
    else target.id = asked ? "cls_00000000000000ff" : "../other";
    return { ...good, body };
  }
  const fields = Object.keys(target).filter((k) => k !== "infra_id");
  const field = fields[v.pick % fields.length];
  if (v.kind === "missing") delete target[field];
  else target[field] = wrongFor(target[field], v.value);
  return { ...good, body };
}

/**
 * The kubeconfig `good` broken by `v`: an HTML page or none for a body that is not JSON, a YAML
 * list or scalar for one that is not an object, a line of it removed, or a server that is no URL.
 */
function brokenKubeconfig(good: string, v: Violation): string {
  const lines = good.split("\n");
  if (v.kind === "notJson") return v.text.length % 2 === 0 ? `<!doctype html>\n<html><body>${v.text}</body></html>\n` : "";
  if (v.kind === "notObject") return `- ${JSON.stringify(v.value)}\n`;
  if (v.kind === "missing") {
    // One of the lines the contract needs: a list's header, a name, the server, a context's cluster or user.
    const needed = lines
      .map((line, i) => [line, i] as const)
      .filter(([line]) => /^(clusters|users|contexts):|name:|server:|cluster: |user: /.test(line.trim()));
    const [, at] = needed[v.pick % needed.length];
    return lines.filter((_, i) => i !== at).join("\n");
  }
  const server = typeof (v as { value?: unknown }).value === "string" ? (v as { value: string }).value : "10.0.0.1:6443";
  return good.replace(/server: .*/, `server: ${JSON.stringify(/^https?:\/\/[^\s/?#@]/.test(server) ? `ftp://${server}` : server)}`);
}

/** `value`, unless it has the type of `was` (a string for a string, a count for a count). */
function wrongFor(was: unknown, value: unknown): unknown {
  if (typeof was === "string") return typeof value === "string" ? 0 : value;
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? "7" : value;
}
