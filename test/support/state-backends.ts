/**
 * The self-managed state backends the GitOps tests run the recipe against, read as data: a
 * directory (`file://`), and a table of a throwaway PostgreSQL server (`postgres://`, started by
 * `scripts/postgres`), where each of the backend's files is a row (`key` the URL's path, the
 * database's name, then `/` and the file's path; `data` a JSON object whose `data` is the content
 * in base64).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startPostgres } from "../../scripts/lib/postgres.mjs";

export type BackendKind = "file" | "postgres";

export interface StateBackend {
  kind: BackendKind;
  /** `PULUMI_BACKEND_URL`. */
  url: string;
  /** The content of the backend's file at `key` (e.g. `.pulumi/meta.yaml`), or undefined. */
  read(key: string): string | undefined;
  /** The keys of the backend's files under `under` (e.g. `.pulumi/locks/`) ending in `.json`. */
  jsonKeys(under: string): string[];
  /** Stops the server, if any (the caller removes the directory of a `file://` backend). */
  stop(): Promise<void>;
  /** PostgreSQL only: the server gone as in a crash (kill -9 of the postmaster), and started again. */
  halt?(): Promise<void>;
  resume?(): Promise<void>;
}

/** Every lock file of every stack of `backend`. */
export function lockKeys(backend: StateBackend): string[] {
  return backend.jsonKeys(".pulumi/locks/");
}

/** A backend of `kind`; a `file://` one in `dir`. */
export async function startBackend(kind: BackendKind, dir: string): Promise<StateBackend> {
  if (kind === "file") {
    fs.mkdirSync(dir, { recursive: true });
    const file = (key: string) => path.join(dir, key);
    return {
      kind,
      url: `file://${dir}`,
      read: (key) => (fs.existsSync(file(key)) ? fs.readFileSync(file(key), "utf8") : undefined),
      jsonKeys: (prefix) => {
        if (!fs.existsSync(file(prefix))) return [];
        return (fs.readdirSync(file(prefix), { recursive: true }) as string[])
          .filter((f) => f.endsWith(".json"))
          .map((f) => path.posix.join(prefix, f));
      },
      stop: async () => undefined,
    };
  }
  const server = await startPostgres();
  // psql, with the key as a variable (quoted by psql), reading the table the CLI made.
  const query = (sql: string, vars: Record<string, string>): string =>
    execFileSync(
      "psql",
      [server.url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", ...Object.entries(vars).flatMap(([k, v]) => ["-v", `${k}=${v}`])],
      {
        input: sql,
        encoding: "utf8",
      },
    );
  const prefix = `${new URL(server.url).pathname.replace(/^\/+/, "")}/`;
  const tableExists = () => query("SELECT to_regclass('pulumi_state') IS NOT NULL", {}).trim() === "t";
  return {
    kind,
    url: server.url,
    read: (key) => {
      if (!tableExists()) return undefined;
      const rows = query("SELECT data->>'data' FROM pulumi_state WHERE key = :'key'", { key: prefix + key }).trim();
      return rows === "" ? undefined : Buffer.from(rows, "base64").toString("utf8");
    },
    jsonKeys: (under) => {
      if (!tableExists()) return [];
      const rows = query("SELECT key FROM pulumi_state WHERE starts_with(key, :'under') AND key LIKE '%.json' ORDER BY key", {
        under: prefix + under,
      });
      return rows
        .split("\n")
        .filter((k) => k !== "")
        .map((k) => k.slice(prefix.length));
    },
    stop: server.stop,
    halt: server.halt,
    resume: server.resume,
  };
}
