// Paging, batching and replay against a real `engram serve` whose batch limit is small, so a
// few hundred rows cross many pages and batches. Reads name customer_events: the example
// package's trigger derives customer profiles into the same entities as the writes go on.
import { fileURLToPath } from "node:url";
import { Engram, PartialWriteError, type RecordRow } from "@engram/client";
import { publishCatalogDirectory } from "@engram/client/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEngram, startEngram } from "../../../test/support/engram-serve.js";

const BATCH = 40;
const event = (entity: string, i: number, dedupe = true): RecordRow => ({
  collection: "customer_events",
  entity,
  type: "note",
  text: `note ${i}`,
  ...(dedupe ? { dedupe_key: `${entity}-${i}` } : {}),
});

describe("paging, batches and replay", () => {
  let server: RunningEngram;
  let engram: Engram;
  beforeAll(async () => {
    server = await startEngram({ MAX_BATCH_RECORDS: String(BATCH) });
    engram = new Engram({ url: server.url, key: server.key });
  });
  afterAll(() => server.stop());

  it("splits a write at the server's batch limit and keeps dedupe keys across batches", async () => {
    expect((await engram.workspace()).limits.max_batch_records).toBe(BATCH);
    const rows = Array.from({ length: 130 }, (_, i) => event("paged", i));
    const first = await engram.records.write(rows);
    expect(first.inserted.map((row) => row.index)).toEqual(rows.map((_, i) => i));
    expect(first.job_ids.length).toBeGreaterThan(0);
    // The same rows again: every one a duplicate of its first write, at its own index.
    const again = await engram.records.write(rows);
    expect(again.inserted).toEqual([]);
    expect(again.duplicates.map((row) => [row.index, row.id])).toEqual(
      first.inserted.map((row) => [row.index, row.id]),
    );
  });

  it("says which rows were written when a later batch fails", async () => {
    const rows = Array.from({ length: BATCH + 5 }, (_, i) => event("partial", i));
    rows[BATCH + 2] = { ...event("partial", BATCH + 2), collection: "no_such_collection" };
    const error = await engram.records.write(rows).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialWriteError);
    const partial = error as PartialWriteError;
    expect(partial.firstUnwritten).toBe(BATCH);
    expect(partial.written.inserted).toHaveLength(BATCH);
    expect(partial.cause).toMatchObject({ status: 422 });
    const stored = await engram
      .timeline({ entity: "partial", collections: ["customer_events"], limit: 100 })
      .toArray();
    expect(stored).toHaveLength(BATCH);
  });

  it("lists the workspace's records across entities and pages by the opaque cursor", async () => {
    const listed = await engram.records
      .list({ collection: "customer_events", type: "note", limit: 30 })
      .toArray();
    const timelines = [
      ...(await engram.timeline({ entity: "paged", collections: ["customer_events"], limit: 100 }).toArray()),
      ...(await engram
        .timeline({ entity: "partial", collections: ["customer_events"], limit: 100 })
        .toArray()),
    ];
    expect(listed.map((row) => row.id).sort()).toEqual(timelines.map((row) => row.id).sort());
    const seqs = listed.map((row) => row.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(new Set(listed.map((row) => row.entity))).toEqual(new Set(["paged", "partial"]));
  });

  it("iterates a timeline across pages, newest first, each record once", async () => {
    const pages = [];
    for await (const page of engram
      .timeline({ entity: "paged", collections: ["customer_events"], limit: 25 })
      .pages())
      pages.push(page);
    expect(pages).toHaveLength(6);
    const texts = pages.flatMap((page) => page.records.map((row) => row.text));
    expect(texts).toEqual(Array.from({ length: 130 }, (_, i) => `note ${129 - i}`));
    expect(await engram.timeline({ entity: "paged", limit: 7 }).toArray(10)).toHaveLength(10);
  });

  it("iterates a keyed slot's history and the entity list across pages", async () => {
    const versions = Array.from({ length: 12 }, (_, i) => ({
      collection: "customer_facts",
      entity: "slot-owner",
      type: "plan",
      key: "plan",
      text: `plan v${i}`,
      content: { value: `v${i}` },
    }));
    for (const row of versions) await engram.records.write([row]);
    const history = await engram
      .history({ entity: "slot-owner", collection: "customer_facts", key: "plan", limit: 5 })
      .toArray();
    expect(history.map((v) => v.content)).toEqual(versions.map((row) => row.content).reverse());
    const entities = await engram.entities({ limit: 1 }).toArray();
    expect(entities.map((e) => e.entity)).toEqual(["paged", "partial", "slot-owner"]);
  });

  it("replays changes: a handler that throws leaves the cursor, and a re-run skips nothing and repeats nothing", async () => {
    await engram.records.write(Array.from({ length: 50 }, (_, i) => event("replayed", i)));
    const applied: string[] = [];
    let calls = 0;
    const crashing = async (page: { records: { id: string }[] }) => {
      calls += 1;
      if (calls === 3) throw new Error("the consumer's store is down");
      for (const row of page.records) applied.push(row.id);
    };
    const query = { entity: "replayed", collection: "customer_events", limit: 10 };
    await expect(engram.consume("mirror", query, crashing)).rejects.toThrow("store is down");
    expect(applied).toHaveLength(20);

    const done = await engram.consume("mirror", query, crashing);
    expect(done).toMatchObject({ pages: 3, records: 30 });
    expect(applied).toHaveLength(50);
    expect(new Set(applied).size).toBe(50);
    const timeline = engram.timeline({ entity: "replayed", collections: ["customer_events"], limit: 100 });
    const timelineIds = (await timeline.toArray()).map((row) => row.id);
    expect(applied).toEqual(timelineIds.reverse());

    // Caught up: nothing more, until something new is written.
    expect(await engram.consume("mirror", query, crashing)).toMatchObject({ pages: 0, records: 0 });
    await engram.records.write([event("replayed", 50)]);
    expect(await engram.consume("mirror", query, crashing)).toMatchObject({ pages: 1, records: 1 });
  });

  it("queues a derivation, waits for its job and reads its run", async () => {
    await engram.records.write([
      { collection: "customer_events", entity: "derived", type: "ticket", text: "Asked for an invoice copy" },
    ]);
    const queued = await engram.derivations.run("customer_profile", "derived");
    const job = await engram.jobs.wait(queued.job_id, { intervalMs: 100 });
    expect(job.state).toBe("succeeded");
    // The write's own trigger runs the same derivation too: the job's run is one of the entity's
    // runs, not necessarily the newest, and it is skipped (no successful_run_id) when the
    // trigger's run already read the write.
    const runs = await engram.runs.list({ entity: "derived" }).toArray();
    const ours = runs.find((row) => row.job_id === job.id);
    expect(ours?.status).toBe(job.successful_run_id === null ? "skipped" : "succeeded");
    if (job.successful_run_id !== null) expect(ours?.id).toBe(job.successful_run_id);
    const run = await engram.runs.get(ours?.id as string);
    expect(run).toMatchObject({ id: ours?.id, entity: "derived", job_id: job.id });
  });

  it("publishes a catalog directory", async () => {
    const dir = fileURLToPath(new URL("../../../examples/catalog/", import.meta.url));
    const dry = await publishCatalogDirectory(engram, dir, "support@1.0.0", { dryRun: true });
    expect(dry).not.toHaveProperty("loaded");
    const published = await publishCatalogDirectory(engram, dir, "support@1.0.0");
    expect(published).toMatchObject({ loaded: true, package: "support@1.0.0" });
    expect((await engram.catalog.get()).catalog_hash).toBe(
      (published as { catalog_hash: string }).catalog_hash,
    );
  });
});
