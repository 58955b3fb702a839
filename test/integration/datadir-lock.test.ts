import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockDataDir } from "../../src/platform/db/datadir-lock.js";
import { DataDirLockedError } from "../../src/platform/db/index.js";

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid as number;
}

describe("embedded data directory lock", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-lock-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("is held by one process at a time and names the holder", async () => {
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
    try {
      await writeFile(join(dir, "engram.lock"), String(sleeper.pid));
      const error = await lockDataDir(dir).catch((e) => e);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect(error.message).toContain(String(sleeper.pid));
    } finally {
      sleeper.kill();
    }
  });

  it("refuses a second lock from the same process", async () => {
    const lock = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(String(process.pid));
    await lock.release();
  });

  it("takes over a stale lock left by a dead process", async () => {
    const pid = await deadPid();
    await writeFile(join(dir, "engram.lock"), String(pid));
    const lock = await lockDataDir(dir);
    expect(await readFile(join(dir, "engram.lock"), "utf8")).toBe(String(process.pid));
    await lock.release();
  });

  it("is released on close so the next process can take it", async () => {
    const first = await lockDataDir(dir);
    await first.release();
    const second = await lockDataDir(dir);
    await second.release();
  });
});
