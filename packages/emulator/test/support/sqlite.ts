/**
 * Raw access to a state database, for tests that damage it the way a disk or a hand edit would. In
 * a child process: node:sqlite warns that it is experimental on Node 22, and that stays there.
 */
import { spawnSync } from "node:child_process";

const SCRIPT = `
const { DatabaseSync } = require("node:sqlite");
const [file, sql, params] = JSON.parse(process.argv[1]);
const db = new DatabaseSync(file);
process.stdout.write(JSON.stringify(db.prepare(sql).all(...params)));
db.close();
`;

/** Runs one SQL statement on `file` (an SQLite database) and returns its rows. */
export function sqlite<T = Record<string, unknown>>(file: string, sql: string, params: unknown[] = []): T[] {
  const r = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", "-e", SCRIPT, JSON.stringify([file, sql, params])], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`sqlite ${file}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T[];
}
