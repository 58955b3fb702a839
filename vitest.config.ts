import { availableParallelism } from "node:os";
import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The client packages resolve to each other's TypeScript sources (their "engram-source" export).
  resolve: { conditions: ["engram-source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["engram-source", ...defaultServerConditions] } },
  test: {
    include: ["test/**/*.test.ts", "clients/*/test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // PGlite startup and server databases make the first test of a file slower than a unit test.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A worker process runs its files one after another with the modules already imported, instead
    // of a new process importing the whole application for every file (most of the suite's time:
    // the PGlite suite took 277 s and 280 s per file, 166 s and 171 s shared, same machine load).
    // Each file still gets a fresh database (test/support/db.ts); test files that change shared
    // state (timers, spies, process listeners) restore it when they finish.
    isolate: false,
    // Most of a test's time is waiting (on PostgreSQL, child processes, HTTP), so files run two
    // at a time even on two cores, where vitest's default (cores - 1) runs them one by one: the
    // suite took 488 s on PGlite and 336 s on the server one at a time, 362 s and 210 s two at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
