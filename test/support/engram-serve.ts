// A real `engram serve` for tests that reach Engram the way a client does (the TypeScript client
// and its integrations, MCP bridges): a child process on a port of its own, with the demo
// workspace (the example package published) and its key. Embedded storage in a directory of its
// own, or the suite's server database when DATABASE_URL is set.
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEnv, listening, startCli } from "./cli.js";
import { createTestDb, type TestDb } from "./db.js";

export interface RunningEngram {
  /** The API's base URL, like http://127.0.0.1:41234 */
  url: string;
  /** The demo workspace's key (read-write). */
  key: string;
  /** The environment the server runs with (for CLI commands against the same storage). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startEngram(extraEnv: Record<string, string> = {}): Promise<RunningEngram> {
  const dir = await mkdtemp(join(tmpdir(), "engram-serve-"));
  let testDb: TestDb | undefined;
  let env: NodeJS.ProcessEnv;
  if (process.env.DATABASE_URL) {
    testDb = await createTestDb();
    env = cliEnv({ DATABASE_URL: testDb.url as string, ...extraEnv });
  } else {
    env = cliEnv({ DATA_DIR: join(dir, "data"), ...extraEnv });
  }
  const child: ChildProcess = startCli(["serve", "--port", "0", "--demo"], { ...env, LOG_LEVEL: "info" });
  child.stdout?.resume();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const cleanup = async () => {
    await rm(dir, { recursive: true, force: true });
    await testDb?.close();
  };
  try {
    const ready = await listening(child);
    const key = /egk_[A-Za-z0-9_-]{43}/.exec(ready.stderr)?.[0];
    if (!key) throw new Error(`engram serve printed no demo key: ${ready.stderr}`);
    return {
      url: ready.url,
      key,
      env,
      async stop() {
        child.kill("SIGTERM");
        await exited;
        await cleanup();
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    await cleanup();
    throw error;
  }
}
