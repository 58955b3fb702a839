// PostgreSQL restarted under writes and searches (server only, and only when
// RELIABILITY_PG_RESTART=1: it restarts the machine's server, so .ci/run runs it alone after the
// suites). The service recovers without a restart of its own, /health reports the outage and
// the recovery, and writes retried with their dedupe keys land exactly once.
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";
import { onServer } from "../support/db.js";

const enabled = onServer && process.env.RELIABILITY_PG_RESTART === "1";

/** Restarts the server without blocking the event loop: the service keeps serving meanwhile. */
async function restartServer(): Promise<void> {
  const version = readdirSync("/etc/postgresql").sort().at(-1) as string;
  await promisify(execFile)("pg_ctlcluster", [
    "--skip-systemctl-redirect",
    version,
    "main",
    "restart",
    "--mode",
    "fast",
  ]);
}

describe.runIf(enabled)("PostgreSQL restarted during writes and searches", () => {
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    t = await createTestApp();
    headers = (await t.workspace("pg-restart")).headers;
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { package: MINIMAL_PACKAGE, files: minimalFiles() },
    });
    expect(res.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it("recovers by itself; retried writes land once; /health sees the outage and the recovery", {
    timeout: 120_000,
  }, async () => {
    const health: number[] = [];
    const pending = new Set(Array.from({ length: 60 }, (_, i) => i));
    let stop = false;
    const write = (i: number) =>
      t.app.inject({
        method: "POST",
        url: "/records",
        headers,
        payload: {
          records: [
            { collection: "notes", entity: "e", type: "note", text: `row ${i}`, dedupe_key: `k${i}` },
          ],
        },
      });
    const load = (async () => {
      for (let i = 0; !stop; i = (i + 1) % 60) {
        const [w, s] = await Promise.all([
          write(i),
          t.app.inject({ method: "POST", url: "/search", headers, payload: { mode: "text", q: "row" } }),
        ]);
        if (w.statusCode === 200) pending.delete(i);
        for (const res of [w, s]) {
          // Only the outage's own refusals: never a 500.
          expect([200, 503], res.body).toContain(res.statusCode);
        }
      }
    })();
    // /health on its own, often: a write may wait out the restart, health must report it.
    const probe = (async () => {
      while (!stop) {
        health.push((await t.app.inject({ url: "/health" })).statusCode);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await restartServer();
    // Recovery: the next requests succeed on fresh connections.
    const deadline = Date.now() + 60_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      const ok = (await t.app.inject({ url: "/health" })).statusCode === 200;
      const searched = await t.app.inject({
        method: "POST",
        url: "/search",
        headers,
        payload: { mode: "text", q: "row" },
      });
      recovered = ok && searched.statusCode === 200;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    stop = true;
    await Promise.all([load, probe]);
    for (const i of [...pending]) expect((await write(i)).statusCode).toBe(200);
    // Every key once, however often it was retried.
    for (let i = 0; i < 60; i++) {
      const again = await write(i);
      expect(again.json().duplicates).toHaveLength(1);
    }
    const { rows } = await t.db.query<{ n: number; keys: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT dedupe_key)::int AS keys FROM records WHERE collection = 'notes'",
    );
    expect(rows[0]).toEqual({ n: 60, keys: 60 });
    expect(recovered).toBe(true);
    // The load loop's last /health may have been sent during the outage; a new one sees recovery.
    expect(health).toContain(503);
    expect((await t.app.inject({ url: "/health" })).statusCode).toBe(200);
  });
});
