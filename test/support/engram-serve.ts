// A real `engram serve` for tests that reach Engram the way a client does (the TypeScript client
// and its integrations, MCP bridges): a child process on a port of its own, with the demo
// workspace (the example package published) and its key. Embedded storage in a directory of its
// own (a copy of the migrated template), or the suite's server database when DATABASE_URL is set.
import type { ChildProcess } from "node:child_process";
import { cliStorage, listening, startCli } from "./cli.js";

export interface RunningEngram {
  /** The API's base URL, like http://127.0.0.1:41234 */
  url: string;
  /** The demo workspace's key (its first: scope admin). */
  key: string;
  /** The environment the server runs with (for CLI commands against the same storage). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startEngram(extraEnv: Record<string, string> = {}): Promise<RunningEngram> {
  const storage = await cliStorage();
  const env = { ...storage.env, ...extraEnv };
  const child: ChildProcess = startCli(["serve", "--port", "0", "--demo"], { ...env, LOG_LEVEL: "info" });
  child.stdout?.resume();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
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
        await storage.cleanup();
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    await storage.cleanup();
    throw error;
  }
}
