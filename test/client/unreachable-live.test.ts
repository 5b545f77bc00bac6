/**
 * An endpoint nothing answers at. On this machine (a loopback host) or under a name that cannot
 * resolve, that is a wrong endpoint or a stopped emulator: the call fails within seconds, naming
 * the endpoint and the reason. A service elsewhere refusing connections may be restarting: it is
 * retried within the call's deadline. An `https://` endpoint whose server speaks plain HTTP fails
 * at once, saying so. Waits run on a ManualClock: the figures are virtual time.
 */
import { createServer, type Server, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { NetworkError, createClient, type RetryInfo } from "../../src/client";
import { ManualClock } from "@pulumi-cms/contract";
import { emulator, rejection } from "../support/client";

const TOKEN = "tok_unreachable_1";

/** A port on `host` that nothing listens on (refused at once). */
function closedPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as import("node:net").AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function probingClient(endpoint: string) {
  const clock = new ManualClock(Date.now());
  const retries: RetryInfo[] = [];
  const client = createClient({ endpoint, token: TOKEN, clock, limiter: false, onRetry: (r) => retries.push(r) });
  return { client, clock, retries };
}

/** This machine's first non-loopback IPv4 address: a "remote" host whose refusals are immediate. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

let listening: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => (listening ? listening.close(() => resolve()) : resolve()));
  listening = undefined;
});

describe("an endpoint on this machine that refuses connections", () => {
  it("fails within 10 s (4 attempts), naming the endpoint and that nothing listens there", async () => {
    const port = await closedPort("127.0.0.1");
    const { client, clock, retries } = probingClient(`http://127.0.0.1:${port}`);
    const start = clock.now();
    const e = await rejection(client.listClusters());
    expect(retries).toHaveLength(3);
    expect(clock.now() - start).toBeLessThan(10_000);
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.code).toBe("ECONNREFUSED");
    expect(e.message).toContain(`Nothing accepts connections at http://127.0.0.1:${port} on this machine`);
  });

  it("named localhost, too", async () => {
    const port = await closedPort("127.0.0.1");
    const { client, retries } = probingClient(`http://localhost:${port}`);
    const e = await rejection(client.getCluster("cls_0000000000000001"));
    expect(retries).toHaveLength(3);
    expect(e.message).toContain(`Nothing accepts connections at http://localhost:${port} on this machine`);
  });
});

describe("an https:// endpoint whose server speaks plain HTTP (the emulator)", () => {
  it("fails at the first attempt, saying so and naming the http:// endpoint to use, without OpenSSL's report", async () => {
    const emu = await emulator();
    try {
      const { host } = new URL(emu.url);
      const { client, retries } = probingClient(`https://${host}`);
      const e = await rejection(client.listClusters());
      expect(e).toBeInstanceOf(NetworkError);
      expect(retries).toEqual([]);
      expect(e.message).toBe(
        `CMS API GET /v1/clusters got no TLS handshake (ERR_SSL_WRONG_VERSION_NUMBER). The endpoint https://${host} speaks plain HTTP: use http://${host}.`,
      );
    } finally {
      await emu.close();
    }
  });
});

describe("an endpoint whose host name cannot resolve", () => {
  it("fails at the first attempt, naming the endpoint and that its name does not resolve", async () => {
    const { client, retries } = probingClient("http://cms.invalid:8787");
    const e = await rejection(client.listClusters());
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.message).toContain("The host name of the endpoint http://cms.invalid:8787 does not resolve");
    expect(retries).toEqual([]);
  });
});

describe.runIf(externalAddress)("a service elsewhere that refuses connections for a while", () => {
  it("is retried past the local limit, within the deadline, and answers once it listens again", async () => {
    const host = externalAddress as string;
    const port = await closedPort(host);
    const virtual = new ManualClock(Date.now());
    const retries: RetryInfo[] = [];
    // The service comes back during the wait after the fifth refusal: more than a loopback
    // endpoint is given.
    const clock = {
      now: () => virtual.now(),
      sleep: async (ms: number) => {
        await virtual.sleep(ms);
        if (retries.length !== 5) return;
        await new Promise<void>((resolve) => {
          listening = createServer((socket) => {
            sockets.add(socket);
            socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"items":[],"total":0}');
          }).listen(port, host, () => resolve());
        });
      },
    };
    const client = createClient({
      endpoint: `http://${host}:${port}`,
      token: TOKEN,
      clock,
      limiter: false,
      onRetry: (r) => retries.push(r),
    });
    expect((await client.listClusters()).items).toEqual([]);
    expect(retries).toHaveLength(5);
    expect(retries.every((r) => r.networkCode === "ECONNREFUSED")).toBe(true);
  });
});
