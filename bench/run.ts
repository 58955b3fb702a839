// npm run bench: measures Engram through its real HTTP API on a deterministic synthetic corpus:
// ingest (batches of 100 and of 1), enrichment and write-to-ready throughput, and per search
// mode p50/p95/p99 latency and requests/s at 1 and 8 clients beside the raw SQL floor.
//   npm run bench -- [--records 10000,100000] [--seed 42] [--quick] [--clients 4] ... (--help)
// Uses DATABASE_URL when set (a scratch database is created and dropped), else in-memory PGlite.
// Each size runs in its own process (bench/size.ts); this one prints and saves the tables.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseOptions } from "./options.js";
import { latencyPlot } from "./plot.js";
import { machine, report, type SizeResult } from "./report.js";

const options = parseOptions(process.argv.slice(2));
const db = process.env.DATABASE_URL ? "postgres" : "pglite";
const began = performance.now();

function runSize(records: number, resultPath: string): Promise<void> {
  const script = fileURLToPath(new URL("./size.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    [...process.execArgv, script, String(records), resultPath, JSON.stringify(options)],
    { stdio: "inherit" },
  );
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`the ${records}-record run failed (exit ${code})`)),
    );
  });
}

/** The commit measured, and whether src/ had uncommitted changes (figures then match no commit). */
function source(): { commit: string; src_dirty: boolean } {
  const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
  try {
    return {
      commit: git("rev-parse", "--short", "HEAD"),
      src_dirty: git("status", "--porcelain", "src") !== "",
    };
  } catch {
    return { commit: "unknown", src_dirty: false };
  }
}

/** `base`, or `base-2`, `base-3`...: a second run on the same day keeps the first one's files. */
function freeBase(base: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!existsSync(`${candidate}.json`)) return candidate;
  }
}

const measured = source();
const scratch = await mkdtemp(path.join(os.tmpdir(), "engram-bench-"));
try {
  const sizes: SizeResult[] = [];
  for (const records of options.records) {
    const resultPath = path.join(scratch, `${records}.json`);
    await runSize(records, resultPath);
    sizes.push(JSON.parse(await readFile(resultPath, "utf8")) as SizeResult);
  }
  const date = new Date().toISOString();
  const run = {
    date,
    db,
    layout: sizes[0]?.layout ?? "unknown",
    server_version: sizes[0]?.server_version ?? "unknown",
    seed: options.seed,
    ...measured,
    options,
    machine: machine(),
    sizes,
    seconds: Math.round((performance.now() - began) / 1000),
  };
  const markdown = report(run);
  console.log(`\n${markdown}\n\ntotal ${run.seconds} s`);
  const dir = fileURLToPath(new URL("./results/", import.meta.url));
  await mkdir(dir, { recursive: true });
  const name = `${date.slice(0, 10)}-${run.layout.replace("/", "-")}${options.quick ? "-quick" : ""}`;
  const base = freeBase(path.join(dir, name));
  await writeFile(`${base}.json`, `${JSON.stringify(run, null, 2)}\n`);
  await writeFile(`${base}.md`, `${markdown}\n`);
  const svg = latencyPlot(run);
  if (svg) await writeFile(`${base}.svg`, svg);
  console.log(`saved ${base}.json${svg ? ", .md and .svg" : " and .md"}`);
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
