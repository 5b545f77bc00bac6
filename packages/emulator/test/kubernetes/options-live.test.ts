/**
 * Bad `--kubernetes` options fail at start with a message that names the option and the fix,
 * before anything listens or runs. Needs no Kubernetes binaries.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src";
import { parseCli } from "../../src/cli";
import { findKubernetesBinaries } from "../../src/kubernetes/binaries";

const empty = mkdtempSync(join(tmpdir(), "cms-no-binaries-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe("--kubernetes options", () => {
  it("--kubernetes-bin and --kubernetes-kubeconfig together are refused, naming both", () => {
    expect(() => parseCli(["--kubernetes-bin", empty, "--kubernetes-kubeconfig", "k"], {})).toThrow(
      /--kubernetes-bin and --kubernetes-kubeconfig exclude each other/,
    );
  });

  it("a --kubernetes-bin directory without the control plane and kwok is refused at start, naming what is missing", async () => {
    await expect(startEmulator({ port: 0, kubernetes: { binDir: empty } })).rejects.toThrow(
      `--kubernetes-bin ${empty}: expected executable files kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok in it; missing: kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok`,
    );
  });

  it("without binaries anywhere, the error names every place looked at and how to get them", () => {
    expect(() => findKubernetesBinaries(undefined, { HOME: empty, PATH: empty })).toThrow(
      /found together in none of: KUBEBUILDER_ASSETS, .*kubernetes-v1\.37\.2\/bin, PATH\. Build them with `node_modules\/\.bin\/cms-ensure-kubernetes`.*--kubernetes-bin.*--kubernetes-kubeconfig/,
    );
  });

  it("an unreadable --kubernetes-kubeconfig is refused at start, naming the file", async () => {
    await expect(startEmulator({ port: 0, kubernetes: { kubeconfig: join(empty, "missing") } })).rejects.toThrow(
      `--kubernetes-kubeconfig ${join(empty, "missing")}: cannot read it as YAML (ENOENT)`,
    );
  });
});
