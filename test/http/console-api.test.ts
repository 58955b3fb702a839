// The reads the operator console needs (CONVENTIONS.md "Console"): GET /workspace, GET /entities,
// GET /jobs, GET /records/{id}/cited-by and POST /erase?dry_run=true. Counts against the database,
// paging without duplicates or gaps, literal prefixes, filters, and the refusals of bad input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

type Headers = { authorization: string };

/** Byte order, as the service sorts names (COLLATE "C"). */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe("console reads", () => {
  let t: TestApp;
  let headers: Headers;
  let workspaceId: string;

  const get = (url: string, h: Headers = headers) => t.app.inject({ method: "GET", url, headers: h });
  const ok = async (url: string, h: Headers = headers) => {
    const res = await get(url, h);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };
  const refused = async (url: string, path?: string) => {
    const res = await get(url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.json().code).toBe("request_schema");
    if (path) expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
  };
  const signal = (entity: string, text: string, extra: object = {}) => ({
    collection: "learning_signals",
    entity,
    type: "note",
    text,
    ...extra,
  });
  // Unready until an enrichment worker runs (none runs in this file).
  const fact = (entity: string, key: string, text: string) => ({
    collection: "customer_facts",
    entity,
    type: "fact",
    key,
    text,
    content: { value: text },
  });
  const scalar = async <T>(sql: string, params: unknown[] = [workspaceId]) =>
    (await t.db.query<{ v: T }>(sql, params)).rows[0]?.v as T;

  beforeAll(async () => {
    t = await createTestApp({ env: { ERASE_MAX_RECORDS: "8" } });
    const ws = await t.workspace("console-api");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  describe("GET /workspace", () => {
    it("answers the workspace with counts that match the database", async () => {
      const empty = await ok("/workspace");
      expect(empty).toMatchObject({
        id: workspaceId,
        name: "console-api",
        counts: {
          records: 0,
          entities: 0,
          unready: 0,
          jobs: { queued: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 },
        },
        oldest_unready_at: null,
      });
      expect(Object.keys(empty).sort()).toEqual([
        "counts",
        "created_at",
        "id",
        "key",
        "limits",
        "name",
        "oldest_unready_at",
      ]);
      // The server's write limits, which clients split large writes by.
      expect(empty.limits).toEqual({ max_batch_records: 1000, max_body_bytes: 16 * 1024 * 1024 });
      // The key signed in, never the key itself.
      expect(empty.key).toMatchObject({ name: "default", scope: "admin", expires_at: null });
      expect(JSON.stringify(empty)).not.toContain("egk_");

      await t.writeRecords(headers, [signal("ws-a", "one"), signal("ws-a", "two"), signal("ws-b", "three")]);
      const [firstUnready] = await t.writeRecords(headers, [fact("ws-b", "plan", "pro")]);
      await t.writeRecords(headers, [fact("ws-c", "plan", "free"), fact("ws-c", "tier", "gold")]);
      // A _system row (as erasures write them) is neither a record nor an entity here.
      await t.db.query(
        `INSERT INTO records (workspace_id, id, seq, collection, collection_version, collection_hash, entity, type,
           status, ready, payload_hash, occurred_at)
         SELECT $1, gen_random_uuid(), last_seq + 1, '_system', 1, 'x', 'workspace', 'erasure', 'active', true, 'x', now()
         FROM workspace_counters WHERE workspace_id = $1`,
        [workspaceId],
      );
      await t.db.query("UPDATE workspace_counters SET last_seq = last_seq + 1 WHERE workspace_id = $1", [
        workspaceId,
      ]);
      await t.db.query(
        "UPDATE jobs SET state = 'dead' WHERE workspace_id = $1 AND id = (SELECT id FROM jobs WHERE workspace_id = $1 ORDER BY created_at LIMIT 1)",
        [workspaceId],
      );

      const body = await ok("/workspace");
      expect(body.counts.records).toBe(6);
      expect(body.counts.entities).toBe(3);
      expect(body.counts.unready).toBe(3);
      const byState = await t.db.query<{ state: string; n: number }>(
        "SELECT state, count(*)::int AS n FROM jobs WHERE workspace_id = $1 GROUP BY state",
        [workspaceId],
      );
      const expected = { queued: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 } as Record<
        string,
        number
      >;
      for (const row of byState.rows) expected[row.state] = row.n;
      expect(body.counts.jobs).toEqual(expected);
      expect(body.counts.jobs.dead).toBe(1);
      const oldest = (await ok(`/records/${firstUnready}`)).created_at;
      expect(body.oldest_unready_at).toBe(oldest);
      expect(body.created_at).toBe(empty.created_at);
    });
  });

  describe("GET /entities", () => {
    const names = Array.from({ length: 23 }, (_, i) => `page-${String(i).padStart(2, "0")}`);
    beforeAll(async () => {
      // Several records for some, in separate writes so that their seqs differ.
      await t.writeRecords(
        headers,
        names.map((name) => signal(name, `first ${name}`)),
      );
      await t.writeRecords(headers, [signal("page-03", "second"), signal("page-03", "third")]);
      await t.writeRecords(headers, [
        signal("lit%a", "x"),
        signal("lit%b", "x"),
        signal("lit_a", "x"),
        signal("litxa", "x"),
        signal("lit\\a", "x"),
        signal("Lit%a", "x"),
        signal("lité", "x"),
      ]);
    });

    it("pages through every entity in name order, without duplicates or gaps", async () => {
      const all = (
        await t.db.query<{ entity: string }>(
          "SELECT DISTINCT entity FROM records WHERE workspace_id = $1 AND collection <> '_system'",
          [workspaceId],
        )
      ).rows
        .map((row) => row.entity)
        .sort(byteOrder);
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const query: string = after === null ? "" : `&after=${encodeURIComponent(after)}`;
        const body = await ok(`/entities?limit=7${query}`);
        expect(body.entities.length).toBeLessThanOrEqual(7);
        seen.push(...body.entities.map((e: { entity: string }) => e.entity));
        after = body.next_after;
        if (after !== null) expect(after).toBe(body.entities.at(-1).entity);
        pages++;
      } while (after !== null && pages < 20);
      expect(seen).toEqual(all);
      expect(new Set(seen).size).toBe(seen.length);
      expect(pages).toBe(Math.ceil(all.length / 7));
      // The default page is 50, which holds all of them here.
      const whole = await ok("/entities");
      expect(whole.entities.map((e: { entity: string }) => e.entity)).toEqual(all);
      expect(whole.next_after).toBeNull();
    });

    it("counts each entity's records and names its newest", async () => {
      const body = await ok("/entities?prefix=page-03");
      expect(body.entities).toHaveLength(1);
      const entry = body.entities[0];
      expect(Object.keys(entry).sort()).toEqual(["entity", "last_at", "last_seq", "records"]);
      expect(entry).toMatchObject({ entity: "page-03", records: 3 });
      const newest = (await ok("/timeline?entity=page-03&limit=1")).records[0];
      expect(entry.last_seq).toBe(newest.seq);
      expect(entry.last_at).toBe(newest.created_at);
      // Unready records count too; _system rows do not.
      const wsC = (await ok("/entities?prefix=ws-c")).entities[0];
      expect(wsC.records).toBe(2);
      expect((await ok("/entities?prefix=workspace")).entities).toEqual([]);
    });

    it("takes the prefix literally: % _ and \\ are ordinary characters, case and accents count", async () => {
      const names = async (prefix: string) =>
        (await ok(`/entities?prefix=${encodeURIComponent(prefix)}`)).entities.map(
          (e: { entity: string }) => e.entity,
        );
      expect(await names("lit%")).toEqual(["lit%a", "lit%b"]);
      expect(await names("lit_")).toEqual(["lit_a"]);
      expect(await names("lit\\")).toEqual(["lit\\a"]);
      expect(await names("lit")).toEqual(["lit%a", "lit%b", "lit\\a", "lit_a", "litxa", "lité"]);
      expect(await names("Lit")).toEqual(["Lit%a"]);
      expect(await names("lité")).toEqual(["lité"]);
      expect(await names("%")).toEqual([]);
      expect(await names("_")).toEqual([]);
      expect(await names("nobody")).toEqual([]);
      // An empty prefix is no prefix.
      expect((await names("")).length).toBeGreaterThan(25);
      // Pages within a prefix.
      const first = await ok("/entities?prefix=lit&limit=4");
      expect(first.next_after).toBe("lit_a");
      const second = await ok(`/entities?prefix=lit&limit=4&after=${encodeURIComponent(first.next_after)}`);
      expect(second.entities.map((e: { entity: string }) => e.entity)).toEqual(["litxa", "lité"]);
      expect(second.next_after).toBeNull();
    });

    it("refuses limits outside 1-100 and malformed parameters", async () => {
      await refused("/entities?limit=0", "querystring.limit");
      await refused("/entities?limit=101", "querystring.limit");
      await refused("/entities?limit=ten", "querystring.limit");
      await refused("/entities?after=", "querystring.after");
      await refused(`/entities?prefix=${"x".repeat(257)}`, "querystring.prefix");
      await refused("/entities?prefix=a%00b", "querystring.prefix");
      await refused("/entities?cursor=x", "querystring.cursor");
      expect((await ok("/entities?limit=100")).entities.length).toBeGreaterThan(0);
      expect((await ok("/entities?limit=1")).entities).toHaveLength(1);
    });
  });

  describe("GET /jobs", () => {
    let derivedJob: string;
    beforeAll(async () => {
      for (let i = 0; i < 4; i++) await t.writeRecords(headers, [fact(`jobs-${i}`, "plan", `plan ${i}`)]);
      const run = await t.app.inject({
        method: "POST",
        url: "/processors/customer_profile/run",
        headers,
        payload: { entity: "jobs-0" },
      });
      expect(run.statusCode, run.body).toBe(202);
      derivedJob = run.json().job_id;
      // Twelve jobs sharing one created_at to the microsecond: the cursor must tell them apart by id.
      await t.db.query(
        `INSERT INTO jobs (workspace_id, kind, state, created_at)
         SELECT $1, 'backfill', 'succeeded', timestamptz '2030-01-01 00:00:00.123456+00' FROM generate_series(1, 12)`,
        [workspaceId],
      );
      // And jobs a microsecond apart, which a millisecond cursor would merge.
      await t.db.query(
        `INSERT INTO jobs (workspace_id, kind, state, created_at)
         SELECT $1, 'reindex', 'cancelled', timestamptz '2030-01-01 00:00:00.123456+00' + i * interval '1 microsecond'
         FROM generate_series(1, 5) AS i`,
        [workspaceId],
      );
    });

    const newestFirst = async (where = "", params: unknown[] = []) =>
      (
        await t.db.query<{ id: string }>(
          `SELECT id FROM jobs WHERE workspace_id = $1 ${where} ORDER BY created_at DESC, id DESC`,
          [workspaceId, ...params],
        )
      ).rows.map((row) => row.id);

    const walk = async (query: string, limit: number) => {
      const ids: string[] = [];
      let before: string | null = null;
      let pages = 0;
      do {
        const cursor: string = before === null ? "" : `&before=${before}`;
        const body = await ok(`/jobs?limit=${limit}${query}${cursor}`);
        expect(body.jobs.length).toBeLessThanOrEqual(limit);
        ids.push(...body.jobs.map((job: { id: string }) => job.id));
        before = body.next_before;
        pages++;
      } while (before !== null && pages < 100);
      return { ids, pages };
    };

    it("pages through every job newest first, without duplicates or gaps", async () => {
      const all = await newestFirst();
      expect(all.length).toBeGreaterThan(20);
      for (const limit of [1, 5, 7]) {
        const { ids, pages } = await walk("", limit);
        expect(ids, `limit ${limit}`).toEqual(all);
        expect(pages).toBe(Math.ceil(all.length / limit));
      }
      const first = await ok("/jobs");
      expect(first.jobs).toHaveLength(Math.min(50, all.length));
      if (all.length <= 50) expect(first.next_before).toBeNull();
    });

    it("answers each job as GET /jobs/{id} does", async () => {
      const body = await ok("/jobs?kind=derive");
      expect(body.jobs.map((job: { id: string }) => job.id)).toEqual([derivedJob]);
      expect(body.jobs[0]).toEqual(await ok(`/jobs/${derivedJob}`));
      expect(body.next_before).toBeNull();
    });

    it("filters by state and by kind, alone and together", async () => {
      for (const state of ["queued", "succeeded", "cancelled", "dead", "running"]) {
        const { ids } = await walk(`&state=${state}`, 4);
        expect(ids, state).toEqual(await newestFirst("AND state = $2", [state]));
      }
      const backfills = await walk("&kind=backfill", 5);
      expect(backfills.ids).toHaveLength(12);
      expect(backfills.ids).toEqual(await newestFirst("AND kind = $2", ["backfill"]));
      const both = await walk("&kind=enrich&state=queued", 2);
      expect(both.ids).toEqual(await newestFirst("AND kind = $2 AND state = $3", ["enrich", "queued"]));
      expect(both.ids.length).toBeGreaterThan(2);
      expect((await ok("/jobs?kind=no_such_kind")).jobs).toEqual([]);
    });

    it("refuses an unknown state, limits outside 1-100 and cursors it did not make", async () => {
      await refused("/jobs?state=finished", "querystring.state");
      await refused("/jobs?state=", "querystring.state");
      await refused("/jobs?limit=0", "querystring.limit");
      await refused("/jobs?limit=101", "querystring.limit");
      await refused("/jobs?kind=Bad-Kind", "querystring.kind");
      const cursor = (text: string) => Buffer.from(text).toString("base64url");
      const id = "00000000-0000-4000-8000-000000000000";
      for (const before of [
        "not a cursor",
        "!!!",
        "abc",
        cursor("2030-01-01T00:00:00.123456Z"),
        cursor(`2030-01-01T00:00:00.123Z|${id}`),
        cursor(`2030-13-01T00:00:00.123456Z|${id}`),
        cursor(`2030-02-30T00:00:00.123456Z|${id}`),
        cursor(`0000-01-01T00:00:00.000000Z|${id}`),
        cursor(`2030-01-01T24:00:00.000000Z|${id}`),
        cursor(`2030-01-01T00:00:00.123456Z|${id.toUpperCase()}x`),
        cursor(`2030-01-01T00:00:00.123456Z|${id}|more`),
        "x".repeat(129),
      ]) {
        await refused(`/jobs?before=${encodeURIComponent(before)}`, "querystring.before");
      }
      // A well-formed cursor past every job is simply an empty page.
      expect((await ok(`/jobs?before=${cursor(`0001-01-01T00:00:00.000000Z|${id}`)}`)).jobs).toEqual([]);
    });
  });

  describe("GET /records/{id}/cited-by", () => {
    let parent: string;
    let children: string[];
    let grandchild: string;
    beforeAll(async () => {
      [parent] = (await t.writeRecords(headers, [signal("cite-src", "the source")])) as [string];
      const [other] = (await t.writeRecords(headers, [signal("cite-other", "another source")])) as [string];
      children = [];
      for (let i = 0; i < 5; i++) {
        const derivedFrom = i === 2 ? [other, parent] : [parent];
        children.push(
          ...(await t.writeRecords(headers, [
            signal(`cite-${i % 2}`, `child ${i}`, { derived_from: derivedFrom }),
          ])),
        );
      }
      [grandchild] = (await t.writeRecords(headers, [
        signal("cite-0", "grandchild", { derived_from: [children[0]] }),
      ])) as [string];
      // Cites another record only.
      await t.writeRecords(headers, [signal("cite-0", "unrelated", { derived_from: [other] })]);
    });

    it("lists the records that name it in derived_from, newest first, in the full record shape", async () => {
      const body = await ok(`/records/${parent}/cited-by`);
      expect(Object.keys(body).sort()).toEqual(["next_before_seq", "records"]);
      expect(body.records.map((r: { id: string }) => r.id)).toEqual([...children].reverse());
      expect(body.next_before_seq).toBeNull();
      for (const record of body.records) expect(record).toEqual(await ok(`/records/${record.id}`));
      // Upper-case ids are the same record; a grandchild cites its own parent only.
      expect((await ok(`/records/${parent.toUpperCase()}/cited-by`)).records).toHaveLength(5);
      expect((await ok(`/records/${children[0]}/cited-by`)).records.map((r: { id: string }) => r.id)).toEqual(
        [grandchild],
      );
      expect((await ok(`/records/${grandchild}/cited-by`)).records).toEqual([]);
    });

    it("pages without duplicates or gaps", async () => {
      const ids: string[] = [];
      let before: number | null = null;
      let pages = 0;
      do {
        const cursor: string = before === null ? "" : `&before_seq=${before}`;
        const body = await ok(`/records/${parent}/cited-by?limit=2${cursor}`);
        ids.push(...body.records.map((r: { id: string }) => r.id));
        before = body.next_before_seq;
        if (before !== null) expect(before).toBe(body.records.at(-1).seq);
        pages++;
      } while (before !== null && pages < 10);
      expect(ids).toEqual([...children].reverse());
      expect(pages).toBe(3);
    });

    it("is 404 for an unknown id and refuses bad paging", async () => {
      for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
        const res = await get(`/records/${id}/cited-by`);
        expect(res.statusCode).toBe(404);
        expect(res.json().code).toBe("not_found");
      }
      await refused(`/records/${parent}/cited-by?limit=0`, "querystring.limit");
      await refused(`/records/${parent}/cited-by?limit=101`, "querystring.limit");
      await refused(`/records/${parent}/cited-by?before_seq=-1`, "querystring.before_seq");
      await refused(`/records/${parent}/cited-by?after=1`, "querystring.after");
    });
  });

  describe("POST /erase?dry_run=true", () => {
    const erase = (body: object, query = "") =>
      t.app.inject({ method: "POST", url: `/erase${query}`, headers, payload: body });
    const state = async () => ({
      records: await scalar<number>("SELECT count(*)::int AS v FROM records WHERE workspace_id = $1"),
      system: await scalar<number>(
        "SELECT count(*)::int AS v FROM records WHERE workspace_id = $1 AND collection = '_system'",
      ),
      jobs: await scalar<string>(
        "SELECT string_agg(id::text || state || updated_at::text, ',' ORDER BY id) AS v FROM jobs WHERE workspace_id = $1",
      ),
      heads: await scalar<number>("SELECT count(*)::int AS v FROM heads WHERE workspace_id = $1"),
      workspace: (await ok("/workspace")).counts,
    });

    it("answers what the erasure then removes, and removes nothing itself", async () => {
      const own = await t.writeRecords(headers, [
        signal("dry-x", "one"),
        signal("dry-x", "two"),
        fact("dry-x", "plan", "gold"),
      ]);
      const [d1] = await t.writeRecords(headers, [signal("dry-y", "derived", { derived_from: [own[0]] })]);
      const [d2] = await t.writeRecords(headers, [fact("dry-z", "note", "deeper")]);
      const [d3] = await t.writeRecords(headers, [signal("dry-z", "deepest", { derived_from: [d1, d2] })]);
      const survivors = [d2];

      const before = await state();
      const dry = await erase({ entity: "dry-x" }, "?dry_run=true");
      expect(dry.statusCode, dry.body).toBe(200);
      expect(dry.json()).toEqual({
        dry_run: true,
        deleted: 5,
        affected_entities: 3,
        by_collection: { learning_signals: 4, customer_facts: 1 },
        derived: 2,
      });
      expect(await state()).toEqual(before);
      for (const id of [...own, d1, d3]) expect((await get(`/records/${id}`)).statusCode).toBe(200);

      // list=true names the derived records that would go, newest first; still nothing removed.
      const listed = await erase({ entity: "dry-x" }, "?dry_run=true&list=true");
      expect(listed.statusCode, listed.body).toBe(200);
      expect(listed.json()).toMatchObject({ deleted: 5, derived: 2, derived_records_truncated: false });
      expect(listed.json().derived_records).toEqual([
        { id: d3, entity: "dry-z", collection: "learning_signals", key: null, type: "note", text: "deepest" },
        { id: d1, entity: "dry-y", collection: "learning_signals", key: null, type: "note", text: "derived" },
      ]);
      expect(await state()).toEqual(before);
      const misplaced = await erase({ entity: "dry-x" }, "?list=true");
      expect(misplaced.statusCode).toBe(422);
      expect(misplaced.json().errors.map((e: { path: string }) => e.path)).toEqual(["querystring.list"]);
      expect(await state()).toEqual(before);

      const real = await erase({ entity: "dry-x" });
      expect(real.statusCode, real.body).toBe(200);
      expect(real.json()).toMatchObject({ deleted: 5, affected_entities: 3 });
      for (const id of [...own, d1, d3]) expect((await get(`/records/${id}`)).statusCode).toBe(404);
      for (const id of survivors) expect((await get(`/records/${id}`)).statusCode).toBe(200);
      const audit = (await ok(`/records/${real.json().audit_id}`)).content;
      expect(audit).toMatchObject({ deleted: 5, derived: 2, affected_entities: 3 });
      const after = await state();
      expect(after.system).toBe(before.system + 1);
      expect(after.records).toBe(before.records - 5 + 1);
    });

    it("previews explicit ids with their closure, and what is already gone as nothing", async () => {
      const [a, b] = (await t.writeRecords(headers, [signal("ids-a", "a"), signal("ids-b", "b")])) as [
        string,
        string,
      ];
      await t.writeRecords(headers, [fact("ids-c", "k", "from a")]);
      const [child] = await t.writeRecords(headers, [signal("ids-c", "child of a", { derived_from: [a] })]);
      await t.writeRecords(headers, [signal("ids-d", "child of child", { derived_from: [child] })]);
      const before = await state();
      const dry = await erase({ records: [a.toUpperCase(), b] }, "?dry_run=true");
      expect(dry.json()).toEqual({
        dry_run: true,
        deleted: 4,
        affected_entities: 4,
        by_collection: { learning_signals: 4 },
        derived: 2,
      });
      expect(await state()).toEqual(before);
      const real = (await erase({ records: [a, b] })).json();
      expect(real).toMatchObject({ deleted: 4, affected_entities: 4 });
      const gone = await erase({ records: [a, b] }, "?dry_run=true");
      expect(gone.json()).toEqual({
        dry_run: true,
        deleted: 0,
        affected_entities: 0,
        by_collection: {},
        derived: 0,
      });
      const nobody = await erase({ entity: "nobody-at-all" }, "?dry_run=true");
      expect(nobody.json()).toMatchObject({ deleted: 0, affected_entities: 0, by_collection: {} });
    });

    it("refuses what the erasure refuses: over ERASE_MAX_RECORDS, a bad body, a bad flag", async () => {
      const big = await t.writeRecords(
        headers,
        Array.from({ length: 7 }, (_, i) => signal("dry-big", `big ${i}`)),
      );
      await t.writeRecords(headers, [
        signal("dry-big-child", "c1", { derived_from: [big[0]] }),
        signal("dry-big-child", "c2", { derived_from: [big[1]] }),
      ]);
      const before = await state();
      for (const query of ["?dry_run=true", ""]) {
        const res = await erase({ entity: "dry-big" }, query);
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json()).toMatchObject({ code: "erase_too_large", max_records: 8 });
      }
      const within = await erase({ records: big.slice(0, 3) }, "?dry_run=true");
      expect(within.json()).toMatchObject({ deleted: 5, derived: 2 });
      for (const body of [{}, { entity: "dry-big", records: [big[0]] }, { entity: " " }, { records: [] }]) {
        const res = await erase(body, "?dry_run=true");
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().code).toBe("request_schema");
      }
      for (const flag of ["maybe", "2", "yes"]) {
        const res = await erase({ entity: "dry-big" }, `?dry_run=${flag}`);
        expect(res.statusCode, flag).toBe(422);
        expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual(["querystring.dry_run"]);
      }
      expect(await state()).toEqual(before);
      // dry_run=false is the real erasure.
      const real = await erase({ records: [big[6]] }, "?dry_run=false");
      expect(real.json()).toMatchObject({ deleted: 1, affected_entities: 1 });
      expect(real.json().audit_id).toBeDefined();
    });
  });
});
