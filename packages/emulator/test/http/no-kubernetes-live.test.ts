/**
 * Without `--kubernetes` no API server stands behind a cluster: its kubeconfig points at the
 * emulator's stand-in, and kubectl, run on it as a user would, prints why and what to do instead
 * of a certificate error.
 */
import { execFileSync } from "node:child_process";
import { request } from "node:http";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../src";
import { kubectl } from "../support/kubernetes";
import { type Api, clusterBody, start } from "../support/emulator";

/** Why kubectl cannot run here, or undefined when it can (always in CI, where its absence fails). */
function kubectlUnavailable(): string | undefined {
  if (process.env.CI) return undefined;
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "kubectl is not on PATH";
  }
}

/** What every answer of the stand-in says: the cause, the fix and where to read about it. */
const CAUSE = /cluster cls_[0-9a-f]{16} has no Kubernetes API server: cms-emulator was started without --kubernetes/;
const FIX =
  /restart it as cms-emulator --kubernetes \(with its --state FILE, if it has one, which keeps its clusters; otherwise they are lost\), then run pulumi up --refresh, .* \(see https:\/\/\S+\/packages\/emulator\/docs\/kubernetes\.md\)/;

describe("the kubeconfig of a cluster without --kubernetes", () => {
  let emu: RunningEmulator;
  let api: Api;
  let id: string;
  let kubeconfig: string;

  beforeAll(async () => {
    ({ emu, api } = await start());
    const created = await api.post("/v1/clusters", clusterBody({ name: "records-only" }));
    expect(created.status).toBe(201);
    id = created.body.id;
    const res = await api.get(`/v1/clusters/${id}/kubeconfig`);
    expect(res.status).toBe(200);
    kubeconfig = res.text;
  });
  afterAll(() => emu?.close());

  it("points at the emulator's stand-in over plain HTTP, with no CA to fail on", () => {
    const cluster = parse(kubeconfig).clusters[0].cluster;
    expect(cluster).toEqual({ server: `${emu.url}/_no-kubernetes/${id}` });
  });

  it("names the address the emulator was reached at (its Host header)", async () => {
    const { port } = new URL(emu.url);
    // fetch cannot set Host; node:http sends it as given.
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(`${emu.url}/v1/clusters/${id}/kubeconfig`, {
        headers: { host: `cms.localhost:${port}`, authorization: `Bearer ${emu.token}` },
      });
      req.on("response", (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve(body));
      });
      req.on("error", reject).end();
    });
    expect(parse(text).clusters[0].cluster.server).toBe(`http://cms.localhost:${port}/_no-kubernetes/${id}`);
  });

  it("answers any request, of any method and body, with the cause and the fix; uncounted and unauthenticated", async () => {
    await api.as(emu.adminToken).del("/_emulator/request-counts");
    const base = `/_no-kubernetes/${id}`;
    for (const [method, path, body] of [
      ["GET", `${base}/api`, undefined],
      ["GET", `${base}/version?timeout=5s`, undefined],
      ["POST", `${base}/api/v1/namespaces/default/configmaps`, "apiVersion: v1\nkind: ConfigMap\n"],
      ["PATCH", `${base}/apis/apps/v1/namespaces/default/deployments/web`, "\u0000k8s\u0000protobuf"],
    ] as const) {
      const res = await api.as(undefined).req(method, path, body, body ? { "content-type": "application/yaml" } : {});
      expect(res.status, `${method} ${path}`).toBe(502);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(res.text).toMatch(CAUSE);
      expect(res.text).toMatch(FIX);
      expect(res.text).not.toContain('"'); // client-go quotes the message: no escapes in it
    }
    expect((await api.as(emu.adminToken).get("/_emulator/request-counts")).body).toEqual({});
  });

  describe.skipIf(kubectlUnavailable() !== undefined)(
    `with kubectl${kubectlUnavailable() ? ` (skipped: ${kubectlUnavailable()})` : ""}`,
    () => {
      it("kubectl get prints the cause and the fix, not a certificate error", async () => {
        const out = await kubectl(kubeconfig, ["get", "pods"]);
        expect(out.code).not.toBe(0);
        expect(out.stderr).toMatch(CAUSE);
        expect(out.stderr).toMatch(FIX);
        expect(out.stderr).not.toMatch(/x509|certificate/);
      });

      it("kubectl apply prints them too", async () => {
        const manifest = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } });
        const out = await kubectl(kubeconfig, ["apply", "-f", "-"], manifest);
        expect(out.code).not.toBe(0);
        expect(out.stderr).toMatch(CAUSE);
        expect(out.stderr).toMatch(FIX);
      });
    },
  );
});
