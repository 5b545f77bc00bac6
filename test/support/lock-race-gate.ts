/**
 * A loopback proxy in front of a `postgres://` state backend that makes two updates of one stack
 * lose to each other for certain: it holds each stack-lock write (the CLI's `INSERT` of a key
 * under `.pulumi/locks/`) until a second one is held too, lets both go, then holds every listing
 * of keys (`SELECT key FROM …`, the check the CLI makes after writing its lock) until both locks
 * are in the table. Each update then finds the other's lock and gives up. Everything else passes
 * through untouched. It reads PostgreSQL's wire protocol from the clients (the CLI's extended
 * protocol, psql's simple queries) only to find those two statements.
 */
import { execFile as execFileCb } from "node:child_process";
import net from "node:net";
import { promisify } from "node:util";

const execFile = promisify(execFileCb);

export interface LockRaceGate {
  /** The backend's URL through the proxy. */
  url: string;
  /** How many lock writes were held and let go together (2 once the race was made). */
  released(): number;
  close(): Promise<void>;
}

/**
 * The startup message's protocol version (3.0): the messages before it (an SSL or GSS encryption
 * request, which `sslmode=disable` does not send) carry no type byte, those after it one.
 */
const PROTOCOL_3 = 196608;

/** The gate before `backendUrl`, for the locks under `lockDir` (the key prefix of one stack's locks). */
export async function startLockRaceGate(backendUrl: string, lockDir: string): Promise<LockRaceGate> {
  const target = new URL(backendUrl);
  /** Lock writes held, each a function that lets its connection go on. */
  const heldWrites: (() => void)[] = [];
  let writesReleased = 0;
  /** Listings held until both locks are in the table. */
  const heldListings: (() => void)[] = [];
  let phase: "writes" | "listings" | "open" = "writes";

  /** Lets the held listings go once both locks are in the table (at most a minute: then the test fails on what it sees). */
  async function openListingsOnceBothLocked() {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const count = `SELECT count(*) FROM pulumi_state WHERE starts_with(key, '${lockDir.replaceAll("'", "''")}')`;
      const { stdout } = await execFile("psql", [backendUrl, "-X", "-q", "-A", "-t", "-c", count], { encoding: "utf8" });
      if (Number(stdout.trim()) >= 2) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    phase = "open";
    for (const go of heldListings.splice(0)) go();
  }

  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    upstream.on("data", (d) => client.write(d));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", end).on("close", end);
    client.on("error", end).on("close", end);

    let pending = Buffer.alloc(0);
    let started = false;
    let held = false;
    const queue: Buffer[] = [];
    const statements = new Map<string, string>();
    const send = (message: Buffer) => (held ? queue.push(message) : upstream.write(message));
    const hold = (list: (() => void)[]) => {
      held = true;
      list.push(() => {
        held = false;
        for (const m of queue.splice(0)) {
          if (held) {
            queue.unshift(m);
            break;
          }
          upstream.write(m);
        }
      });
    };
    client.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const message = pending.subarray(0, length);
          pending = pending.subarray(length);
          if (message.readInt32BE(4) === PROTOCOL_3) started = true;
          send(Buffer.from(message));
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < length + 1) return;
        const message = Buffer.from(pending.subarray(0, length + 1));
        pending = pending.subarray(length + 1);
        const type = String.fromCharCode(message[0]);
        const body = message.subarray(5);
        if (type === "P") {
          const nameEnd = body.indexOf(0);
          const name = body.subarray(0, nameEnd).toString("utf8");
          statements.set(name, body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString("utf8"));
        } else if (type === "B") {
          const portalEnd = body.indexOf(0);
          const name = body.subarray(portalEnd + 1, body.indexOf(0, portalEnd + 1)).toString("utf8");
          const query = statements.get(name) ?? "";
          if (phase === "writes" && query.startsWith("INSERT INTO") && body.includes(lockDir)) {
            hold(heldWrites);
            if (heldWrites.length >= 2) {
              phase = "listings";
              writesReleased = heldWrites.length;
              // This Bind goes out after the release, in order with the rest of its connection.
              queue.push(message);
              for (const go of heldWrites.splice(0)) go();
              void openListingsOnceBothLocked();
              continue;
            }
          } else if (phase === "listings" && query.startsWith("SELECT key FROM")) {
            hold(heldListings);
          }
        }
        send(message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(backendUrl);
  url.port = String(port);
  return {
    url: url.href,
    released: () => writesReleased,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
