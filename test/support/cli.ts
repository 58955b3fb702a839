import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareDatabase } from "../../src/database.js";
import { type Db, openDatabase } from "../../src/platform/db/index.js";
import { copyMigratedDataDir, createTestDb, onServer } from "./db.js";

export const ENGRAM_BIN = fileURLToPath(new URL("../../bin/engram.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a CLI child gets: the test's storage, no inherited Engram settings. */
export function cliEnv(storage: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn" };
  return { ...env, ...storage };
}

export function startCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [ENGRAM_BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const child = startCli(args, env);
  return collect(child);
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Waits until `engram serve` logs its address; returns it with the stderr read so far. */
export function listening(child: ChildProcess): Promise<{ url: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stderr);
      if (match?.[1]) resolve({ url: match[1], stderr });
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

/** A running `engram worker --metrics-port 0` behind this metrics token, and where it listens. */
export interface MeteredWorker {
  child: ChildProcess;
  exited: Promise<CliResult>;
  url: string;
}

/** Starts `engram worker --metrics-port 0` on this storage's environment and waits for its port. */
export async function startMeteredWorker(env: NodeJS.ProcessEnv, token: string): Promise<MeteredWorker> {
  const child = startCli(["worker", "--metrics-port", "0"], {
    ...env,
    METRICS_TOKEN: token,
    LOG_LEVEL: "info",
  });
  const started = listening(child);
  const exited = collect(child);
  return { child, exited, url: (await started).url };
}

/**
 * The storage a CLI test's commands share: the test server's database when DATABASE_URL is set,
 * else an embedded data directory of its own, already migrated (copied from the run's template:
 * initdb alone takes a child seconds). The test opens it between commands (the embedded
 * one has one holder at a time, so `release` closes it there; the server's stays open).
 */
export interface CliStorage {
  env: NodeJS.ProcessEnv;
  /** The embedded data directory's parent, for the test's own files. */
  dir: string;
  open(): Promise<Db>;
  release(db: Db): Promise<void>;
  cleanup(): Promise<void>;
}

export async function cliStorage(): Promise<CliStorage> {
  const dir = await mkdtemp(join(tmpdir(), "engram-cli-"));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  if (onServer) {
    const testDb = await createTestDb();
    return {
      env: cliEnv({ DATABASE_URL: testDb.url as string }),
      dir,
      open: async () => testDb.db,
      release: async () => {},
      cleanup: async () => {
        await testDb.close();
        await removeDir();
      },
    };
  }
  const dataDir = join(dir, "data");
  await copyMigratedDataDir(dataDir);
  return {
    env: cliEnv({ DATA_DIR: dataDir }),
    dir,
    async open() {
      const db = await openDatabase({ databaseUrl: undefined, dataDir, vectorLayout: "auto" });
      await prepareDatabase(db);
      return db;
    },
    release: (db) => db.close(),
    cleanup: removeDir,
  };
}

/** The workspaces of these names in the storage, with how many records each holds. */
export async function holdings(
  storage: Pick<CliStorage, "open" | "release">,
  names: string[],
): Promise<Record<string, number>> {
  const db = await storage.open();
  try {
    // Two statements: Citus joins no correlated subquery with a reference table (workspaces).
    const { rows } = await db.query<{ name: string; id: string }>(
      "SELECT name, id FROM workspaces WHERE name = ANY($1::text[])",
      [names],
    );
    const held: Record<string, number> = {};
    for (const row of rows) {
      const { rows: counted } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1",
        [row.id],
      );
      held[row.name] = counted[0]?.n ?? 0;
    }
    return held;
  } finally {
    await storage.release(db);
  }
}
