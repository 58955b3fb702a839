import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

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
