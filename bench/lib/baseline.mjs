/**
 * The baseline the provider is compared with: a plain program that does what a provider polling
 * at a fixed interval does (the DigitalOcean provider polls every 10 s). It uses this package's
 * own client with the rate limiter off (so 429s are retried by the client after Retry-After,
 * like most clients do), and waits with an injectable clock so the same code runs in real time
 * and in virtual time.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const REAL_CLOCK = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A fixed-interval poller over one endpoint + token. */
export function fixedPoller({ pkgDir, endpoint, token, intervalMs = 10_000, clock = REAL_CLOCK, maxPolls = 400 }) {
  const { createClient, isNotFound } = require(`${pkgDir}/dist/client/index.js`);
  const client = createClient({ endpoint, token, limiter: false });
  const waitFor = async (id, done) => {
    for (let i = 0; i < maxPolls; i++) {
      await clock.sleep(intervalMs);
      let cluster;
      try {
        cluster = await client.getCluster(id);
      } catch (e) {
        if (isNotFound(e)) {
          if (done === "gone") return undefined;
          throw e;
        }
        throw e;
      }
      if (cluster.status === "error") throw new Error(`cluster ${id} is in status error`);
      if (done === "running" && cluster.status === "running") return cluster;
    }
    throw new Error(`cluster ${id}: gave up after ${maxPolls} polls`);
  };
  return {
    client,
    /** POST, poll until running, fetch the kubeconfig. */
    async create(body) {
      const created = await client.createCluster(body);
      await waitFor(created.id, "running");
      await client.getKubeconfig(created.id);
      return created.id;
    },
    /** PATCH, poll until running, fetch the kubeconfig again (the provider keeps the kubeconfig it has on an update; docs/benchmarks.md counts these 50 calls separately). */
    async update(id, patch) {
      const after = await client.updateCluster(id, patch);
      if (after.status !== "running") await waitFor(id, "running");
      await client.getKubeconfig(id);
    },
    /** DELETE, poll until 404. */
    async destroy(id) {
      await client.deleteCluster(id);
      await waitFor(id, "gone");
    },
  };
}

/**
 * Run `fn` over every item concurrently; resolves with the failures (never rejects).
 * @returns {Promise<{ results: any[], failures: string[] }>}
 */
export async function allSettled(items, fn) {
  const settled = await Promise.allSettled(items.map(fn));
  return {
    results: settled.map((s) => (s.status === "fulfilled" ? s.value : undefined)),
    failures: settled.filter((s) => s.status === "rejected").map((s) => String(s.reason?.message ?? s.reason)),
  };
}
