import { mkdir, open, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";

const LOCK_FILE = "engram.lock";

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data directory ${dataDir} is in use by process ${pid}; stop that process first (operator commands run while the server is stopped)`,
    );
    this.name = "DataDirLockedError";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readHolder(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

/**
 * Takes the embedded data directory for this process: PGlite must never be opened by two
 * processes at once. A second process fails at once naming the holder's pid; a lock left
 * by a dead process is taken over.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  // Two tries: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      return {
        async release() {
          if ((await readHolder(path)) === process.pid) await unlink(path).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await readHolder(path);
    if (holder !== undefined && isAlive(holder)) {
      throw new DataDirLockedError(dataDir, holder);
    }
    // Stale (dead holder, or an unreadable lock): remove it, unless another process replaced
    // it in the meantime.
    if ((await readHolder(path)) === holder) await unlink(path).catch(() => undefined);
  }
  const holder = await readHolder(path);
  throw new DataDirLockedError(dataDir, holder ?? 0);
}
