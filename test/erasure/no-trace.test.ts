// Erasure leaves no trace (GDPR Art. 17): after erasing an entity, explicit records or, through a
// retention policy, tombstoned slots, a dump of EVERY table of the database holds neither the
// erased entity's name, nor any erased record's id or text, anywhere: only the hash-only _system
// audit says that an erasure happened. Each scenario builds every kind of dependent data first
// (events, keyed facts, derived records two levels deep, runs, derivation state, cursors,
// snapshots, artifact uses, feedback, access marks, embeddings, finished, dead and queued jobs,
// a run in flight) and checks that the dump held the traces before the erasure.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCatalog } from "../../src/catalog/index.js";
import { createModels } from "../../src/models/index.js";
import { runRetention } from "../../src/retention/index.js";
import { ARTIFACTS, EXTRA_COLLECTIONS, VIEWS } from "../support/artifact-catalog.js";
import { COLLECTIONS_YAML, minimalFiles } from "../support/catalog-files.js";
import {
  derivationHarness,
  derivationYaml,
  gatedDeriveWorker,
  type Harness,
  runJobs,
  WEIGHT_PROCESSOR,
} from "../support/derivations.js";
import { dumpDatabase, expectNoTraces, tracesOf } from "../support/dump.js";
import { waitFor } from "../support/wait.js";
import { enrichAll, startTestWorker } from "../support/worker.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const token = () => randomBytes(4).toString("hex");
const DAY = 86_400_000;

/** catalog-files.ts's notes and facts, both enriched, and the artifact catalog's extra collections. */
const COLLECTIONS =
  COLLECTIONS_YAML.replace(
    "sort: true }\n    search_profile: main",
    "sort: true }\n    required_processors: [embedder, weight]\n    search_profile: main",
  ).replace(
    "schema: { type: object }\n    search_profile: main\n",
    "schema: { type: object }\n    required_processors: [embedder]\n    search_profile: main\n",
  ) + EXTRA_COLLECTIONS;

/** Where an erased record's id is found before the erasure: the checks after it can fail. */
const RECORD_TRACE_TABLES = ["artifact_snapshots", "embeddings", "jobs", "record_access", "records", "runs"];

const PROCESSORS = `processors:
  - name: embedder
    kind: embedding
    input: { collections: [notes, facts] }
    model: embed
${WEIGHT_PROCESSOR.replace("processors:\n", "")}`;

/** digest: notes (changes) and facts (current) into facts.summary; overview: facts into facts.overview (two levels deep); broken: never scripted, its job dies. */
const DERIVATIONS = `derivations:\n${[
  derivationYaml("digest", { emit: "{ from: digest, collection: facts, type: digest, keys: [summary] }" }),
  derivationYaml("overview", {
    sources: "      facts: { kind: current, collections: [facts] }",
    emit: "{ from: overview, collection: facts, type: overview, keys: [overview] }",
  }),
  derivationYaml("broken", { emit: "{ from: broken, collection: facts, type: digest, keys: [summary] }" }),
].join("")}`;

const FILES = minimalFiles({
  "collections/main.yaml": COLLECTIONS,
  "processors/main.yaml": PROCESSORS,
  "derivations/main.yaml": DERIVATIONS,
  "views/main.yaml": VIEWS,
  "artifacts/main.yaml": ARTIFACTS,
  "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, snapshots@1, learning_signals@1]
views: [top_notes@1]
artifacts: [brief@1, tiny@1, dormant@1]
search_profiles: [main]
processors: [embedder, weight, digest, overview, broken]
retentions:
  - { name: old_facts, collection: facts@1, after_days: 30, cron: "0 3 * * *", max_pages: 1 }
`,
});

/** A fake reply of one task: one keyed row with this text, citing every record shown. */
const reply = (task: string, key: string, text: string) => ({
  [task]: { records: [{ key, text, citations: "{{evidence.ids}}" }] },
});

const tablesOf = (traces: string[]) => [...new Set(traces.map((t) => t.slice(0, t.indexOf(":"))))].sort();

/** The records of these seeds and everything derived from them, with their text. */
async function closureOf(h: Harness, seedSql: string, params: unknown[]) {
  const { rows } = await h.t.db.query<{ id: string; text: string }>(
    `WITH RECURSIVE c(id) AS (${seedSql}
       UNION SELECT r.id FROM records r JOIN c ON r.derived_from @> ARRAY[c.id] WHERE r.workspace_id = $1)
     SELECT r.id::text AS id, r.text FROM records r JOIN c ON c.id = r.id WHERE r.workspace_id = $1`,
    [h.ws.id, ...params],
  );
  return rows;
}

/** Ids that only name erased things: the snapshots of erased records, the runs of erased entities. */
async function dependentIds(h: Harness, recordIds: string[], entities: string[]) {
  const { rows } = await h.t.db.query<{ id: string }>(
    `SELECT id::text FROM artifact_snapshots WHERE workspace_id = $1 AND record_id = ANY($2::uuid[])
     UNION ALL SELECT id::text FROM runs WHERE workspace_id = $1 AND entity = ANY($3::text[])`,
    [h.ws.id, recordIds, entities],
  );
  return rows.map((row) => row.id);
}

/** Pages a delta consumer to its end, acknowledging each page; returns what it read. */
async function follow(h: Harness, consumer: string, query: string) {
  const seen: { id: string; collection: string; type: string; entity: string }[] = [];
  for (;;) {
    const page = await h.get(`/delta?consumer=${consumer}&limit=100${query}`);
    expect(page.statusCode, page.body).toBe(200);
    const body = page.json();
    if (body.records.length === 0) return { seen, scope_hash: body.scope_hash as string };
    seen.push(...body.records);
    const entity = /entity=([^&]+)/.exec(query)?.[1];
    const moved = await h.post("/cursor", {
      consumer,
      ...(entity ? { entity: decodeURIComponent(entity) } : {}),
      position: body.next_cursor,
      scope_hash: body.scope_hash,
    });
    expect(moved.statusCode, moved.body).toBe(200);
  }
}

/** Artifact state of a customer: a use with a snapshot, a use without, and feedback on the first. */
async function artifactTraces(h: Harness, customer: string, marker: string) {
  const snapshotUse = await h.post("/artifacts/brief/uses", {
    parameters: { customer, question: `what about ${marker}` },
    snapshot: true,
  });
  expect(snapshotUse.statusCode, snapshotUse.body).toBe(200);
  expect(snapshotUse.json().snapshot_id).toEqual(expect.any(String));
  expect(snapshotUse.json().learning_target).not.toBeNull();
  const plainUse = await h.post("/artifacts/brief/uses", { parameters: { customer } });
  expect(plainUse.statusCode, plainUse.body).toBe(200);
  const feedback = await h.post(`/artifact-uses/${snapshotUse.json().id}/feedback`, {
    kind: "correction",
    source: "end_user",
    score: 0.2,
    comment: `Wrong about ${customer}: ${marker}`,
  });
  expect(feedback.statusCode, feedback.body).toBeLessThan(300);
  return { snapshotUse: snapshotUse.json().id as string, plainUse: plainUse.json().id as string };
}

/** The audit is a content-free _system record: hashes and counts only. */
async function expectHashOnlyAudit(h: Harness, auditId: string, type: string) {
  const audit = (await h.get(`/records/${auditId}`)).json();
  expect(audit).toMatchObject({ collection: "_system", type, entity: "workspace", text: "" });
  for (const [key, value] of Object.entries(audit.content as Record<string, unknown>)) {
    if (key.endsWith("_sha256")) expect(value, key).toMatch(/^[0-9a-f]{64}$/);
    else if (key === "mode") expect(["entity", "records"]).toContain(value);
    else if (["policy", "collection", "tick"].includes(key)) expect(value, key).toEqual(expect.any(String));
    else expect(value, key).toEqual(expect.any(Number));
  }
  return audit.content as Record<string, unknown>;
}

/** Searches that return these words mark what they return accessed. */
async function markAccessed(h: Harness, words: string) {
  const res = await h.post("/search", { mode: "text", q: words, k: 50 });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().hits.length).toBeGreaterThan(0);
}

describe("erasing an entity leaves no trace in any table", () => {
  let h: Harness;
  const ENTITY = `erase-me-${token()}@example.com`;
  const MARKER = `zorbleflux${token()}`;
  let erased: { id: string; text: string }[] = [];
  let dependents: string[] = [];
  let uses: { snapshotUse: string; plainUse: string };
  let mirrorIds: string[] = [];
  let auditId: string;
  const ids: Record<string, string> = {};

  const note = (entity: string, text: string, extra: object = {}) => ({
    collection: "notes",
    entity,
    type: "note",
    text,
    content: { priority: 3 },
    ...extra,
  });
  const derive = async (derivation: string, entity: string, script: object) => {
    // Evidence is read once ready.
    await enrichAll(h.t.db, h.ws.id);
    const res = await h.post(`/processors/${derivation}/run`, { entity });
    expect(res.statusCode, res.body).toBe(202);
    await runJobs(h.t.db, h.ws.id, script as Record<string, unknown>);
    return (await h.get(`/jobs/${res.json().job_id}`)).json();
  };

  beforeAll(async () => {
    h = await derivationHarness("no-trace-entity", FILES);
    // A mirror reads everything, _system rows included, from the start.
    await follow(h, "mirror-all", "&include_system=true");
    await follow(h, "mirror-system", "&collection=_system&include_system=true");

    [ids.n1, ids.n2] = (await h.write([
      note(ENTITY, `${ENTITY} called about ${MARKER} outage`),
      note(ENTITY, `${ENTITY} disputed the ${MARKER} invoice`),
    ])) as [string, string];
    [ids.plan] = (await h.write([
      {
        collection: "facts",
        entity: ENTITY,
        type: "fact",
        key: "plan",
        text: `${ENTITY} is on the ${MARKER} plan`,
      },
    ])) as [string];
    // Another entity: one note of its own, one derived from the erased entity's note.
    [ids.b1] = (await h.write([note("bob", "Bob asked for a callback")])) as [string];
    [ids.b2] = (await h.write([
      note("bob", `Bob heard from ${ENTITY} about ${MARKER}`, { derived_from: [ids.n1] }),
    ])) as [string];

    // Derived records two levels deep, a failed run and its dead job.
    const digest = await derive(
      "digest",
      ENTITY,
      reply("digest", "summary", `Summary of ${ENTITY}: ${MARKER} {{evidence.0}}`),
    );
    expect(digest.state).toBe("succeeded");
    const overview = await derive(
      "overview",
      ENTITY,
      reply("overview", "overview", `Overview of ${ENTITY}: ${MARKER} {{evidence.1}}`),
    );
    expect(overview.state).toBe("succeeded");
    expect((await derive("broken", ENTITY, {})).state).toBe("dead");
    // Bob's runs read the derived note (and then bob's summary built on it).
    expect(
      (await derive("digest", "bob", reply("digest", "summary", `Bob summary ${MARKER} {{evidence.0}}`)))
        .state,
    ).toBe("succeeded");
    [ids.b3] = (await h.write([note("bob", "Bob renewed yearly")])) as [string];
    expect(
      (await derive("digest", "bob", reply("digest", "summary", `Bob again ${MARKER} {{evidence.1}}`))).state,
    ).toBe("succeeded");

    uses = await artifactTraces(h, ENTITY, MARKER);
    await enrichAll(h.t.db, h.ws.id);
    await markAccessed(h, MARKER);

    // A cursor scoped to the entity, and the mirror's workspace-wide cursors.
    await follow(h, "mirror-entity", `&entity=${encodeURIComponent(ENTITY)}`);
    mirrorIds = (await follow(h, "mirror-all", "&include_system=true")).seen.map((r) => r.id);
    await follow(h, "mirror-system", "&collection=_system&include_system=true");

    // Work still queued when the erasure comes: held off.
    expect((await h.post("/processors/digest/run", { entity: ENTITY })).statusCode).toBe(202);
    // A dead enrichment job whose error quoted its input, as a provider error may.
    const quoted = await h.t.db.query(
      `UPDATE jobs SET state = 'dead', last_error = 'provider said: ' || $3
       WHERE workspace_id = $1 AND kind = 'enrich' AND payload->'record_ids' ? $2`,
      [h.ws.id, ids.n1, `${ENTITY} called about ${MARKER} outage`],
    );
    expect(quoted.rowCount).toBe(1);

    erased = await closureOf(h, "SELECT id FROM records WHERE workspace_id = $1 AND entity = $2", [ENTITY]);
    dependents = await dependentIds(
      h,
      erased.map((r) => r.id),
      [ENTITY],
    );
  });
  afterAll(() => h.close());

  it("finds the entity's traces in the dump before the erasure (the checks below can fail)", async () => {
    // The snapshot and the entity's three runs.
    expect(dependents).toHaveLength(4);
    const erasedIds = erased.map((r) => r.id);
    // Two levels deep in the entity, the other entity's derived note and bob's summaries on it,
    // the snapshot and the feedback.
    expect(erasedIds).toEqual(expect.arrayContaining([ids.n1, ids.n2, ids.plan, ids.b2]));
    const derivedKinds = await h.t.db.query<{ collection: string; type: string; depth: number }>(
      "SELECT collection, type, depth FROM records WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND depth > 0",
      [h.ws.id, erasedIds],
    );
    expect(derivedKinds.rows.map((r) => `${r.collection}/${r.type}`).sort()).toEqual([
      "facts/digest",
      "facts/digest",
      "facts/digest",
      "facts/overview",
      "learning_signals/correction",
      "notes/note",
      "snapshots/brief_snapshot",
    ]);
    expect(Math.max(...derivedKinds.rows.map((r) => r.depth))).toBeGreaterThanOrEqual(2);
    const dump = await dumpDatabase(h.t.db);
    expect(tablesOf(tracesOf(dump, [ENTITY]))).toEqual(
      expect.arrayContaining([
        "artifact_uses",
        "cursors",
        "derivation_state",
        "heads",
        "jobs",
        "records",
        "runs",
      ]),
    );
    expect(tablesOf(tracesOf(dump, erasedIds))).toEqual(expect.arrayContaining(RECORD_TRACE_TABLES));
  });

  it("erases the entity", async () => {
    const res = await h.post("/erase", { entity: ENTITY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().deleted).toBe(erased.length);
    auditId = res.json().audit_id;
  });

  it("leaves neither the name, nor an erased id or text, in any table", async () => {
    const needles = [ENTITY, MARKER, ...erased.map((r) => r.id), ...erased.map((r) => r.text), ...dependents];
    await expectNoTraces(h.t.db, needles);
  });

  it("writes a hash-only audit that a mirror reading _system rows sees and can apply", async () => {
    const content = await expectHashOnlyAudit(h, auditId, "erasure");
    expect(content).toMatchObject({ mode: "entity", entity_sha256: sha256(ENTITY), deleted: erased.length });
    // Both of the mirror's cursors survived and deliver the audit as their next row.
    for (const [consumer, query] of [
      ["mirror-all", "&include_system=true"],
      ["mirror-system", "&collection=_system&include_system=true"],
    ] as const) {
      const { seen } = await follow(h, consumer, query);
      expect(
        seen.map((r) => r.id),
        consumer,
      ).toContain(auditId);
      expect(seen.find((r) => r.id === auditId)).toMatchObject({ collection: "_system", type: "erasure" });
    }
    // The mirror finds its copies of the entity by the hash, and every copy erased with it is gone.
    expect(sha256(ENTITY)).toBe(content.entity_sha256);
    const erasedIds = new Set(erased.map((r) => r.id));
    for (const id of mirrorIds) {
      const status = (await h.get(`/records/${id}`)).statusCode;
      expect(status, id).toBe(erasedIds.has(id) ? 404 : 200);
    }
  });

  it("keeps what others rest on working: bob's records and runs, the artifact uses", async () => {
    for (const id of [ids.b1, ids.b3]) expect((await h.get(`/records/${id}`)).statusCode).toBe(200);
    const runs = (await h.get("/runs?entity=bob")).json().runs;
    expect(runs).toHaveLength(2);
    // Bob's run audits forgot the erased ids and kept the rest: what each run read of bob's own
    // notes, what it cited of them, the counts; the erased summary left the second run's basis.
    const [second, first] = await Promise.all(
      runs.map(async (run: { id: string }) => (await h.get(`/runs/${run.id}`)).json()),
    );
    expect(first.citations).toEqual([ids.b1]);
    expect(first.output_ids).toEqual([]);
    expect(first.visible_sources).toEqual([
      { source: "notes", kind: "changes", record_ids: [ids.b1] },
      { source: "facts", kind: "current", record_ids: [] },
    ]);
    expect(first.read_receipt.sources.map((s: { record_count: number }) => s.record_count)).toEqual([2, 0]);
    expect(second.citations).toEqual([ids.b3]);
    expect(second.visible_sources.map((s: { record_ids: string[] }) => s.record_ids)).toEqual([[ids.b3], []]);
    expect(second.read_receipt.heads).toEqual([]);
    expect(second.emission.basis.heads).toEqual([]);
    expect(second.expected_active_heads).toEqual([]);
    expect(second.status).toBe("succeeded");
    for (const use of [uses.snapshotUse, uses.plainUse]) {
      const got = (await h.get(`/artifact-uses/${use}`)).json();
      expect(got).toMatchObject({ snapshot_id: null, learning_target: null });
    }
    const feedback = await h.post(`/artifact-uses/${uses.snapshotUse}/feedback`, {
      kind: "thumbs_up",
      source: "operator",
    });
    expect(feedback.statusCode, feedback.body).toBeLessThan(300);
    // The entity's runs went with it; the work queued for it was held off.
    expect((await h.get(`/runs?entity=${encodeURIComponent(ENTITY)}`)).json().runs).toEqual([]);
  });

  it("leaves no trace after the worker ran what the erasure queued either", async () => {
    const worker = await startTestWorker(h.t.db, {}, { derive: true });
    try {
      await waitFor(async () => {
        const { rows } = await h.t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND state IN ('queued', 'running')",
          [h.ws.id],
        );
        return rows[0]?.n === 0;
      });
    } finally {
      await worker.stop();
    }
    const needles = [ENTITY, MARKER, ...erased.map((r) => r.id), ...erased.map((r) => r.text), ...dependents];
    await expectNoTraces(h.t.db, needles);
  });

  it("erasing an entity again, with no record left, removes what an older version left of its name", async () => {
    const OLD = `erased-before-${token()}@example.com`;
    // What an erasure before this fix left behind.
    const leftovers = [
      `INSERT INTO cursors (workspace_id, consumer, entity, position, scope_hash)
       VALUES ($1, 'old-mirror', $2, 0, repeat('0', 64))`,
      "INSERT INTO derivation_state (workspace_id, derivation, entity, generation) VALUES ($1, 'digest', $2, 1)",
      `INSERT INTO runs (workspace_id, id, operation, derivation, entity, status, package, catalog_hash,
         definition_hash, config_hash)
       VALUES ($1, gen_random_uuid(), 'derive', 'digest', $2, 'succeeded', 'demo-pack@1.0.0', 'h', 'h', 'h')`,
      `INSERT INTO jobs (workspace_id, kind, state, payload, coalesce_key, last_error, finished_at)
       VALUES ($1, 'derive', 'dead', jsonb_build_object('derivation', 'digest', 'entity', $2::text),
         'derive:digest:' || $2, 'failed for ' || $2, now())`,
      `INSERT INTO artifact_uses (workspace_id, id, artifact, version, definition_hash, render_sha256,
         learning_target, render_tokens, render_truncated, expires_at)
       VALUES ($1, gen_random_uuid(), 'brief', 1, 'h', 'h', jsonb_build_object('entity', $2::text, 'heads',
         '[]'::jsonb), 1, false, now() + interval '1 day')`,
    ];
    for (const statement of leftovers) await h.t.db.query(statement, [h.ws.id, OLD]);
    expect(tablesOf(tracesOf(await dumpDatabase(h.t.db), [OLD]))).toEqual([
      "artifact_uses",
      "cursors",
      "derivation_state",
      "jobs",
      "runs",
    ]);
    const res = await h.post("/erase", { entity: OLD });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().deleted).toBe(0);
    await expectNoTraces(h.t.db, [OLD]);
  });
});

describe("erasing explicit records leaves no trace of them, a run in flight included", () => {
  let h: Harness;
  let gated: ReturnType<typeof gatedDeriveWorker>;
  const CUSTOMER = `rec-${token()}`;
  const MARKER = `quixotrel${token()}`;
  let erased: { id: string; text: string }[] = [];
  let dependents: string[] = [];
  const ids: Record<string, string> = {};
  let inFlight: string;
  let auditId: string;
  let release: () => void = () => {};

  beforeAll(async () => {
    h = await derivationHarness("no-trace-records", FILES);
    const note = (text: string) => ({
      collection: "notes",
      entity: CUSTOMER,
      type: "note",
      text,
      content: { priority: 2 },
    });
    [ids.n1, ids.n2] = (await h.write([note(`The ${MARKER} incident`), note("A quiet week")])) as [
      string,
      string,
    ];
    await h.write([{ collection: "facts", entity: CUSTOMER, type: "fact", key: "tier", text: "Gold tier" }]);
    await enrichAll(h.t.db, h.ws.id);
    const first = await h.post("/processors/digest/run", { entity: CUSTOMER });
    await runJobs(h.t.db, h.ws.id, reply("digest", "summary", `Digest ${MARKER} {{evidence.0}}`));
    expect((await h.get(`/jobs/${first.json().job_id}`)).json().state).toBe("succeeded");
    await artifactTraces(h, CUSTOMER, MARKER);
    await enrichAll(h.t.db, h.ws.id);
    await markAccessed(h, MARKER);
    const scope = (await h.get(`/delta?consumer=rec-mirror&entity=${CUSTOMER}&limit=100`)).json();
    await h.post("/cursor", {
      consumer: "rec-mirror",
      entity: CUSTOMER,
      position: scope.next_cursor,
      scope_hash: scope.scope_hash,
    });

    // A run that is waiting on its model when the erasure commits.
    await h.write([note("Another quiet week")]);
    await enrichAll(h.t.db, h.ws.id);
    const catalog = await requireCatalog(h.t.db, h.ws.id);
    const real = createModels(catalog.index.models.def, {
      endpoints: [],
      fakeScript: reply("digest", "summary", `Late digest ${MARKER} {{evidence.0}}`),
    });
    gated = gatedDeriveWorker(h.t.db, real);
    await gated.worker.start();
    const gate = gated.gate();
    release = gate.release;
    inFlight = (await h.post("/processors/digest/run", { entity: CUSTOMER })).json().job_id;
    await gate.entered;
    erased = await closureOf(h, "SELECT $2::uuid", [ids.n1]);
    dependents = await dependentIds(
      h,
      erased.map((r) => r.id),
      [],
    );
  });
  afterAll(async () => {
    release();
    await gated.worker.stop();
    await h.close();
  });

  it("finds the records' traces in the dump before the erasure (the checks below can fail)", async () => {
    // The note, the digest on it, the snapshot on both and the feedback on the digest.
    expect(erased).toHaveLength(4);
    const traces = tracesOf(
      await dumpDatabase(h.t.db),
      erased.map((r) => r.id),
    );
    expect(tablesOf(traces)).toEqual(expect.arrayContaining(RECORD_TRACE_TABLES));
  });

  it("erases the records while a run of their entity waits on its model, which then writes nothing", async () => {
    const res = await h.post("/erase", { records: [ids.n1] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().deleted).toBe(erased.length);
    auditId = res.json().audit_id;
    release();
    const job = await waitFor(async () => {
      const got = (await h.get(`/jobs/${inFlight}`)).json();
      return ["succeeded", "dead", "cancelled"].includes(got.state) ? got : undefined;
    });
    expect(job.state).toBe("cancelled");
    expect(job.last_error).toContain("erasure");
    // Give the released run the time to try its commit.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const runs = (await h.get(`/runs?entity=${CUSTOMER}`)).json().runs;
    expect(runs.map((r: { status: string; failure: string | null }) => [r.status, r.failure])).toEqual([
      ["failed", "cancelled"],
      ["succeeded", null],
    ]);
    for (const run of runs) expect((await h.get(`/runs/${run.id}`)).statusCode).toBe(200);
  });

  it("leaves no erased id or text in any table; what remains of the entity stays", async () => {
    expect(dependents).toHaveLength(1);
    const needles = [MARKER, ...erased.map((r) => r.id), ...erased.map((r) => r.text), ...dependents];
    await expectNoTraces(h.t.db, needles);
    expect((await h.get(`/records/${ids.n2}`)).statusCode).toBe(200);
    const content = await expectHashOnlyAudit(h, auditId, "erasure");
    expect(content).toMatchObject({ mode: "records", requested: 1, deleted: erased.length });
  });
});

describe("a retention policy that purges an entity's slots leaves no trace of it", () => {
  let h: Harness;
  const ENTITY = `retain-${token()}@example.com`;
  const MARKER = `vexillumar${token()}`;
  let erased: { id: string; text: string }[] = [];
  let dependents: string[] = [];
  let t0: number;

  beforeAll(async () => {
    h = await derivationHarness("no-trace-retention", FILES);
    const fact = (key: string, text: string, extra: object = {}) => ({
      collection: "facts",
      entity: ENTITY,
      type: "fact",
      key,
      text,
      ...extra,
    });
    const [value] = (await h.write([fact("plan", `${ENTITY} pays for ${MARKER}`)])) as [string];
    await h.write([
      { collection: "notes", entity: "bob", type: "note", text: `Bob met ${MARKER}`, derived_from: [value] },
      { collection: "notes", entity: "bob", type: "note", text: "Bob stays" },
    ]);
    await enrichAll(h.t.db, h.ws.id);
    const run = await h.post("/processors/overview/run", { entity: ENTITY });
    await runJobs(
      h.t.db,
      h.ws.id,
      reply("overview", "overview", `Overview ${ENTITY} ${MARKER} {{evidence.0}}`),
    );
    expect((await h.get(`/jobs/${run.json().job_id}`)).json().state).toBe("succeeded");
    await artifactTraces(h, ENTITY, MARKER);
    await enrichAll(h.t.db, h.ws.id);
    await markAccessed(h, MARKER);
    const scope = (
      await h.get(`/delta?consumer=ret-mirror&entity=${encodeURIComponent(ENTITY)}&limit=100`)
    ).json();
    await h.post("/cursor", {
      consumer: "ret-mirror",
      entity: ENTITY,
      position: scope.next_cursor,
      scope_hash: scope.scope_hash,
    });
    await h.write([fact("plan", "", { tombstone: true })]);
    erased = await closureOf(h, "SELECT id FROM records WHERE workspace_id = $1 AND entity = $2", [ENTITY]);
    dependents = await dependentIds(
      h,
      erased.map((r) => r.id),
      [ENTITY],
    );
    t0 = Date.now();
  });
  afterAll(() => h.close());

  it("finds the entity's traces in the dump before the tick (the checks below can fail)", async () => {
    // The value and its tombstone, the overview on it, bob's note, the snapshot, the feedback;
    // the snapshot row and the entity's run.
    expect(erased.length).toBe(6);
    expect(dependents).toHaveLength(2);
    const dump = await dumpDatabase(h.t.db);
    expect(tablesOf(tracesOf(dump, [ENTITY]))).toEqual(
      expect.arrayContaining(["artifact_uses", "cursors", "derivation_state", "jobs", "records", "runs"]),
    );
  });

  it("purges the slot with its derived closure on the policy's tick", async () => {
    const run = (days: number) =>
      runRetention(h.t.db, { maxRecords: 100_000, now: new Date(t0 + days * DAY) });
    expect(await run(20)).toBe(0);
    expect(await run(45)).toBe(1);
    for (const { id } of erased) expect((await h.get(`/records/${id}`)).statusCode).toBe(404);
    const audits = (await h.get("/timeline?include_system=true&collections=_system&types=retention")).json()
      .records;
    expect(audits).toHaveLength(1);
    const content = await expectHashOnlyAudit(h, audits[0].id, "retention");
    expect(content).toMatchObject({ policy: "old_facts", slots: 1, deleted: erased.length });
  });

  it("leaves neither the name, nor an erased id or text, in any table", async () => {
    const needles = [ENTITY, MARKER, ...erased.map((r) => r.id), ...erased.map((r) => r.text), ...dependents];
    await expectNoTraces(h.t.db, needles);
  });
});
