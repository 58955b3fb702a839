import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

describe("records: writes", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const write = (records: unknown[]) =>
    t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
  const count = async () =>
    (
      await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE workspace_id = $1", [
        workspaceId,
      ])
    ).rows[0]?.n ?? 0;

  beforeAll(async () => {
    t = await createTestApp({ env: { MAX_BATCH_RECORDS: "5" } });
    const ws = await t.workspace("records-w");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  it("answers 409 no_catalog in a workspace without a catalog", async () => {
    const other = await t.workspace("records-empty");
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: other.headers,
      payload: { records: [{ collection: "edges", entity: "x", type: "t" }] },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("no_catalog");
  });

  it("writes a batch and reads each record back in full", async () => {
    const res = await write([
      {
        collection: "edges",
        entity: "kb",
        type: "link",
        text: "billing relates to invoices",
        content: { subject: "billing", object: "invoices", predicate: "relates_to" },
        occurred_at: "2026-01-02T03:04:05+02:00",
        scores: { weight: 0.5 },
        annotations: { note: { by: "test" } },
      },
      {
        collection: "customer_events",
        entity: "c1",
        type: "ticket",
        text: "Card declined",
        content: { channel: "email" },
      },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.duplicates).toEqual([]);
    expect(body.inserted.map((i: any) => [i.index, i.ready])).toEqual([
      [0, true],
      [1, false],
    ]);
    const record = (await t.app.inject({ url: `/records/${body.inserted[0].id}`, headers })).json();
    expect(record).toMatchObject({
      id: body.inserted[0].id,
      collection: "edges",
      collection_version: 1,
      entity: "kb",
      type: "link",
      key: null,
      status: "active",
      ready: true,
      tombstone: false,
      text: "billing relates to invoices",
      content: { subject: "billing", object: "invoices", predicate: "relates_to" },
      scores: { weight: 0.5 },
      annotations: { note: { by: "test" } },
      citations: [],
      derived_from: [],
      depth: 0,
      run_id: null,
    });
    expect(record.collection_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(new Date(record.occurred_at).toISOString()).toBe("2026-01-02T01:04:05.000Z");
    expect(typeof record.seq).toBe("number");
    expect(Date.parse(record.created_at)).not.toBeNaN();
  });

  it("stores unready rows with an enrichment job in the same write, and reports the job", async () => {
    const res = await write([{ collection: "customer_events", entity: "c2", type: "ticket", text: "x" }]);
    const id = res.json().inserted[0].id;
    const { rows } = await t.db.query<{
      id: string;
      kind: string;
      state: string;
      payload: { record_ids: string[] };
    }>("SELECT id, kind, state, payload FROM jobs WHERE workspace_id = $1 AND payload->'record_ids' ? $2", [
      workspaceId,
      id,
    ]);
    expect(rows).toEqual([
      { id: expect.any(String), kind: "enrich", state: "queued", payload: { record_ids: [id] } },
    ]);
    expect(res.json().job_id).toBe(rows[0]?.id);
    const job = await t.app.inject({ url: `/jobs/${res.json().job_id}`, headers });
    expect(job.json()).toMatchObject({ id: rows[0]?.id, kind: "enrich", state: "queued" });
  });

  it("reports no job when every row is ready at once, or the batch held only duplicates", async () => {
    const row = {
      collection: "learning_signals",
      entity: "jobless",
      type: "t",
      text: "ready",
      dedupe_key: "j-1",
    };
    const first = await write([row]);
    expect(first.json().inserted[0].ready).toBe(true);
    expect(first.json().job_id).toBeNull();
    const again = await write([row]);
    expect(again.json()).toEqual({
      inserted: [],
      duplicates: [{ index: 0, id: first.json().inserted[0].id }],
      job_id: null,
    });
  });

  it("allocates increasing seq numbers in batch order", async () => {
    const res = await write([
      { collection: "edges", entity: "s", type: "t", content: { subject: "a", object: "b", predicate: "p" } },
      { collection: "edges", entity: "s", type: "t", content: { subject: "b", object: "c", predicate: "p" } },
    ]);
    const ids = res.json().inserted.map((i: any) => i.id);
    const seqs = [];
    for (const id of ids) seqs.push((await t.app.inject({ url: `/records/${id}`, headers })).json().seq);
    expect(seqs[1]).toBe(seqs[0] + 1);
  });

  it.each([
    ["an unknown collection", { collection: "nope", entity: "e", type: "t" }, "records.1.collection"],
    ["the _system collection", { collection: "_system", entity: "e", type: "t" }, "records.1.collection"],
    [
      "a missing entity",
      { collection: "edges", type: "t", content: { subject: "a", object: "b", predicate: "p" } },
      "records.1.entity",
    ],
    [
      "a blank type",
      { collection: "edges", entity: "e", type: " ", content: { subject: "a", object: "b", predicate: "p" } },
      "records.1.type",
    ],
    [
      "an unknown field",
      { collection: "learning_signals", entity: "e", type: "t", colour: "red" },
      "records.1.colour",
    ],
    [
      "a key on an event collection",
      { collection: "learning_signals", entity: "e", type: "t", key: "k" },
      "records.1.key",
    ],
    [
      "no key on a keyed collection",
      { collection: "customer_facts", entity: "e", type: "t", content: { value: "v" } },
      "records.1.key",
    ],
    [
      "content against the schema",
      { collection: "customer_events", entity: "e", type: "t", content: { channel: "fax" } },
      "records.1.content.channel",
    ],
    [
      "content that is not an object",
      { collection: "learning_signals", entity: "e", type: "t", content: [1] },
      "records.1.content",
    ],
    [
      "occurred_at without timezone",
      { collection: "learning_signals", entity: "e", type: "t", occurred_at: "2026-01-01T00:00:00" },
      "records.1.occurred_at",
    ],
    [
      "a bad status",
      { collection: "learning_signals", entity: "e", type: "t", status: "archived" },
      "records.1.status",
    ],
    [
      "a non-number score",
      { collection: "learning_signals", entity: "e", type: "t", scores: { s: "high" } },
      "records.1.scores.s",
    ],
    [
      "a malformed parent id",
      { collection: "learning_signals", entity: "e", type: "t", derived_from: ["x"] },
      "records.1.derived_from.0",
    ],
    [
      "a tombstone without key",
      { collection: "learning_signals", entity: "e", type: "t", tombstone: true },
      "records.1.tombstone",
    ],
  ])("refuses %s with 422 and writes nothing of the batch", async (_name, bad, path) => {
    const before = await count();
    const res = await write([{ collection: "learning_signals", entity: "ok", type: "fine" }, bad]);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("request_schema");
    expect(res.json().errors.map((e: any) => e.path)).toContain(path);
    expect(await count()).toBe(before);
  });

  it("refuses a parent that does not exist in this workspace", async () => {
    const res = await write([
      {
        collection: "learning_signals",
        entity: "e",
        type: "t",
        derived_from: ["00000000-0000-4000-8000-000000000000"],
      },
    ]);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].path).toBe("records.0.derived_from.0");
  });

  it("derives depth from the deepest parent", async () => {
    const a = (await write([{ collection: "learning_signals", entity: "d", type: "t" }])).json().inserted[0]
      .id;
    const b = (
      await write([{ collection: "learning_signals", entity: "d", type: "t", derived_from: [a] }])
    ).json().inserted[0].id;
    const c = (
      await write([{ collection: "learning_signals", entity: "d", type: "t", derived_from: [a, b] }])
    ).json().inserted[0].id;
    const record = (await t.app.inject({ url: `/records/${c}`, headers })).json();
    expect(record.depth).toBe(2);
    expect(record.derived_from.sort()).toEqual([a, b].sort());
  });

  it("refuses an empty batch and one above MAX_BATCH_RECORDS", async () => {
    expect((await write([])).statusCode).toBe(422);
    const six = Array.from({ length: 6 }, () => ({ collection: "learning_signals", entity: "e", type: "t" }));
    const res = await write(six);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].path).toBe("records");
  });

  it("lists a retry with the same dedupe_key and payload as a duplicate", async () => {
    const row = { collection: "learning_signals", entity: "dd", type: "t", text: "once", dedupe_key: "k-1" };
    const first = (await write([row])).json();
    const before = await count();
    const again = await write([row, { ...row, dedupe_key: "k-2" }]);
    expect(again.statusCode).toBe(200);
    expect(again.json().duplicates).toEqual([{ index: 0, id: first.inserted[0].id }]);
    expect(again.json().inserted.map((i: any) => i.index)).toEqual([1]);
    expect(await count()).toBe(before + 1);
  });

  it("refuses the whole batch with 409 dedupe_conflict when the payload differs", async () => {
    await write([
      { collection: "learning_signals", entity: "dc", type: "t", text: "a", dedupe_key: "conflict" },
    ]);
    const before = await count();
    const res = await write([
      { collection: "learning_signals", entity: "dc", type: "t", text: "new row" },
      { collection: "learning_signals", entity: "dc", type: "t", text: "b", dedupe_key: "conflict" },
    ]);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("dedupe_conflict");
    expect(await count()).toBe(before);
  });

  it("treats a repeated dedupe_key inside one batch like a retry", async () => {
    const row = { collection: "learning_signals", entity: "db", type: "t", dedupe_key: "inside" };
    const res = (await write([row, row])).json();
    expect(res.inserted).toHaveLength(1);
    expect(res.duplicates).toEqual([{ index: 1, id: res.inserted[0].id }]);
    const conflict = await write([
      { ...row, dedupe_key: "inside-2" },
      { ...row, dedupe_key: "inside-2", text: "other" },
    ]);
    expect(conflict.statusCode).toBe(409);
  });

  it("hides another workspace's records behind 404", async () => {
    const id = (await write([{ collection: "learning_signals", entity: "mine", type: "t" }])).json()
      .inserted[0].id;
    const other = await t.workspace("records-other");
    const res = await t.app.inject({ url: `/records/${id}`, headers: other.headers });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe("not_found");
    expect((await t.app.inject({ url: "/records/not-a-uuid", headers })).statusCode).toBe(404);
  });
});
