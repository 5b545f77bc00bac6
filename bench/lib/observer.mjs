/**
 * Every `/v1` request the in-process emulator answers, seen from the server side through Node's
 * `http.server.*` diagnostics channels: start and finish time, method, route, cluster id, HTTP
 * status and which token sent it (by a label the bench gives each token; tokens are never
 * recorded). This is how the benchmarks count 429s: the emulator's own request counts include
 * 429s without telling them apart.
 */
import dc from "node:diagnostics_channel";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";

// The package's own reading of `/v1` paths (built: the benchmarks run `npm run build` first).
const { parseApiPath } = createRequire(import.meta.url)("../../dist/shared/domain/api-paths.js");

/** Epoch milliseconds with sub-millisecond resolution. */
export const nowMs = () => performance.timeOrigin + performance.now();

/** `/v1/clusters/cls_x/nodes` → `GET /v1/clusters/:cluster_id/nodes` style route and the id. */
export function classify(method, url) {
  const parsed = parseApiPath(url);
  if (!parsed) return { route: `${method} ${url.split("?")[0]}`, id: undefined };
  return { route: `${method} ${parsed.route}`, id: parsed.clusterId };
}

/**
 * Start recording the `/v1` requests served on `port`.
 * @param {number} port the emulator's port
 * @param {Map<string,string>} labels token → label (e.g. "provider", "baseline")
 */
export function observeRequests(port, labels) {
  const started = new WeakMap();
  /** @type {Array<{start:number,end:number,method:string,route:string,id?:string,status:number,label:string}>} */
  const log = [];
  const ours = (server) => {
    const a = server?.address?.();
    return a && typeof a === "object" && a.port === port;
  };
  const onStart = ({ request, server }) => {
    if (ours(server) && request.url.startsWith("/v1")) started.set(request, nowMs());
  };
  const onFinish = ({ request, response }) => {
    const start = started.get(request);
    if (start === undefined) return;
    const auth = String(request.headers.authorization ?? "");
    const token = auth.replace(/^bearer\s+/i, "");
    const { route, id } = classify(request.method, request.url);
    log.push({ start, end: nowMs(), method: request.method, route, id, status: response.statusCode, label: labels.get(token) ?? "other" });
  };
  dc.subscribe("http.server.request.start", onStart);
  dc.subscribe("http.server.response.finish", onFinish);
  return {
    log,
    /** Requests of `label` (optionally only those that started at or after `since`). */
    select: (label, since = -Infinity, until = Infinity) => log.filter((r) => r.label === label && r.start >= since && r.start < until),
    stop() {
      dc.unsubscribe("http.server.request.start", onStart);
      dc.unsubscribe("http.server.response.finish", onFinish);
    },
  };
}

/** Totals of a list of observed requests: calls, 429s, per-route counts. */
export function summarize(requests) {
  const byRoute = {};
  let r429 = 0;
  for (const r of requests) {
    byRoute[r.route] = (byRoute[r.route] ?? 0) + 1;
    if (r.status === 429) r429 += 1;
  }
  return { calls: requests.length, r429, byRoute };
}
