import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { TIMELINE_ROW } from "../support/row-fields.js";

// The compact row of GET /timeline (CONVENTIONS.md); /delta rows add entity.

describe("records: reads and replay", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const write = async (records: unknown[]) => {
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().inserted.map((i: any) => i.id) as [string, string, ...string[]];
  };
  const get = async (url: string, h = headers) => {
    const res = await t.app.inject({ url, headers: h });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const fact = (key: string, value: string, extra: Record<string, unknown> = {}) => ({
    collection: "customer_facts",
    entity: "acme",
    type: "fact",
    key,
    text: value,
    content: { value },
    ...extra,
  });
  const event = (text: string, entity = "acme") => ({
    collection: "learning_signals",
    entity,
    type: "note",
    text,
  });

  let planOld: string;
  let planNew: string;
  let phone: string;
  let phoneGone: string;
  let draftPlan: string;

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("reads");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
    [planOld] = await write([fact("plan", "free plan")]);
    await write([event("first note"), event("other entity", "globex")]);
    [planNew, phone] = await write([fact("plan", "pro plan"), fact("phone", "555-0100")]);
    [phoneGone] = await write([fact("phone", "", { tombstone: true })]);
    [draftPlan] = await write([fact("plan", "enterprise?", { status: "draft" })]);
    await write([event("second note")]);
    // An audit record as the service writes them (clients cannot write _system).
    await t.db.query(
      `INSERT INTO records (workspace_id, id, seq, collection, collection_version, collection_hash, entity, type,
         status, ready, payload_hash, occurred_at)
       SELECT $1, gen_random_uuid(), last_seq + 1, '_system', 1, 'x', 'acme', 'erasure_audit', 'active', true, 'x', now()
       FROM workspace_counters WHERE workspace_id = $1`,
      [workspaceId],
    );
    await t.db.query("UPDATE workspace_counters SET last_seq = last_seq + 1 WHERE workspace_id = $1", [
      workspaceId,
    ]);
  });
  afterAll(() => t.close());

  describe("GET /timeline", () => {
    it("lists an entity's records newest first, successors and unready rows included", async () => {
      const body = await get("/timeline?entity=acme");
      const seqs = body.records.map((r: any) => r.seq);
      expect(seqs).toEqual([...seqs].sort((a: number, b: number) => b - a));
      expect(body.records.map((r: any) => r.text)).toEqual([
        "second note",
        "",
        "555-0100",
        "pro plan",
        "first note",
        "free plan",
      ]);
      expect(Object.keys(body.records[0]).sort()).toEqual(TIMELINE_ROW);
      expect(body.records.find((r: any) => r.text === "pro plan").ready).toBe(false);
      expect(body.next_before_seq).toBeNull();
      expect(body.truncated).toBe(false);
    });

    it("excludes _system unless include_system", async () => {
      const plain = await get("/timeline?entity=acme");
      expect(plain.records.some((r: any) => r.collection === "_system")).toBe(false);
      const all = await get("/timeline?entity=acme&include_system=true");
      expect(all.records[0].collection).toBe("_system");
    });

    it("pages with limit and before_seq", async () => {
      const first = await get("/timeline?entity=acme&limit=2");
      expect(first.records).toHaveLength(2);
      expect(first.truncated).toBe(true);
      expect(first.next_before_seq).toBe(first.records[1].seq);
      const second = await get(`/timeline?entity=acme&limit=2&before_seq=${first.next_before_seq}`);
      expect(second.records[0].seq).toBeLessThan(first.records[1].seq);
      const all = await get("/timeline?entity=acme&limit=100");
      expect([...first.records, ...second.records]).toEqual(all.records.slice(0, 4));
    });

    it("filters by collections, types and status", async () => {
      const notes = await get("/timeline?entity=acme&collections=learning_signals");
      expect(notes.records.map((r: any) => r.text)).toEqual(["second note", "first note"]);
      const byType = await get(
        "/timeline?entity=acme&types=fact&collections=customer_facts,learning_signals",
      );
      expect(byType.records.every((r: any) => r.type === "fact")).toBe(true);
      const drafts = await get("/timeline?entity=acme&status=draft");
      expect(drafts.records.map((r: any) => r.id)).toEqual([draftPlan]);
      const all = await get("/timeline?entity=acme&status=all");
      expect(all.records.map((r: any) => r.id)).toContain(draftPlan);
    });

    it.each([["limit=0"], ["limit=101"], ["status=gone"], ["before_seq=-1"], ["colour=red"]])(
      "refuses %s with 422",
      async (query) => {
        const res = await t.app.inject({ url: `/timeline?entity=acme&${query}`, headers });
        expect(res.statusCode).toBe(422);
        expect(res.json().code).toBe("request_schema");
      },
    );
  });

  describe("GET /document", () => {
    it("selects the newest active row per key and lists current tombstones as retractions", async () => {
      const doc = await get("/document?entity=acme");
      expect(doc.entity).toBe("acme");
      expect(doc.status).toBe("active");
      expect(doc.beliefs).toHaveLength(1);
      expect(doc.beliefs[0]).toMatchObject({
        collection: "customer_facts",
        collection_version: 1,
        key: "plan",
        type: "fact",
        text: "pro plan",
        id: planNew,
        citations: [],
        status: "active",
        ready: false,
      });
      expect(doc.retractions).toEqual([
        { collection: "customer_facts", key: "phone", id: phoneGone, seq: expect.any(Number) },
      ]);
      // customer_profile (accumulator trigger) feeds customer_facts: its sources hold unready rows.
      expect(doc.freshness).toEqual([
        {
          derivation: "customer_profile",
          watermark_seq: 0,
          dirty: false,
          unready: expect.any(Number),
          job: null,
        },
      ]);
      expect(doc.freshness[0].unready).toBeGreaterThan(0);
      expect(JSON.stringify(doc)).not.toContain(planOld);
      expect(JSON.stringify(doc)).not.toContain(phone);
    });

    it("reads draft values with status=draft", async () => {
      const doc = await get("/document?entity=acme&status=draft");
      expect(doc.beliefs.map((b: any) => b.id)).toEqual([draftPlan]);
    });

    it("brings a retracted key back with a later live row", async () => {
      await write([{ ...fact("fax", "1"), entity: "revive" }]);
      await write([{ ...fact("fax", "", { tombstone: true }), entity: "revive" }]);
      expect((await get("/document?entity=revive")).retractions).toHaveLength(1);
      const [back] = await write([{ ...fact("fax", "2"), entity: "revive" }]);
      const doc = await get("/document?entity=revive");
      expect(doc.retractions).toEqual([]);
      expect(doc.beliefs.map((b: any) => b.id)).toEqual([back]);
    });

    it("narrows by collections and requires an entity", async () => {
      expect((await get("/document?entity=acme&collections=pages")).beliefs).toEqual([]);
      expect((await t.app.inject({ url: "/document", headers })).statusCode).toBe(422);
    });

    it("refuses a document above DOCUMENT_MAX_RECORDS with 409 document_too_large", async () => {
      const small = await createTestApp({ env: { DOCUMENT_MAX_RECORDS: "1" }, testDb: t.testDb });
      try {
        const res = await small.app.inject({ url: "/document?entity=acme&status=active", headers });
        expect(res.statusCode).toBe(409);
        expect(res.json().code).toBe("document_too_large");
      } finally {
        await small.app.close();
      }
    });
  });

  describe("GET /document/history", () => {
    it("lists every version of a slot newest first with content and hashes", async () => {
      const body = await get("/document/history?entity=acme&collection=customer_facts&key=plan");
      expect(body.versions.map((v: any) => v.id)).toEqual([draftPlan, planNew, planOld]);
      expect(body.versions[1]).toMatchObject({
        collection: "customer_facts",
        collection_version: 1,
        key: "plan",
        status: "active",
        content: { value: "pro plan" },
        tombstone: false,
        depth: 0,
      });
      expect(body.versions[1].collection_hash).toMatch(/^[0-9a-f]{64}$/);
      const page = await get("/document/history?entity=acme&collection=customer_facts&key=plan&limit=1");
      expect(page.truncated).toBe(true);
      const next = await get(
        `/document/history?entity=acme&collection=customer_facts&key=plan&limit=1&before_seq=${page.next_before_seq}`,
      );
      expect(next.versions[0].id).toBe(planNew);
    });

    it("gives each version superseded_at: when the next version of its status replaced it, null while current", async () => {
      const body = await get("/document/history?entity=acme&collection=customer_facts&key=plan");
      const [draft, current, old] = body.versions;
      // The draft does not replace the active value: each status keeps its own current version.
      expect(draft.superseded_at).toBeNull();
      expect(current.superseded_at).toBeNull();
      expect(old.superseded_at).toBe(current.created_at);
      // On a page of its own too: the replacing version sits on the newer page.
      const last = await get(
        `/document/history?entity=acme&collection=customer_facts&key=plan&limit=1&before_seq=${current.seq}`,
      );
      expect(last.versions[0]).toMatchObject({ id: planOld, superseded_at: current.created_at });
      // A tombstone supersedes the value it retracts.
      const phoneHistory = await get("/document/history?entity=acme&collection=customer_facts&key=phone");
      const [tombstone, value] = phoneHistory.versions;
      expect([tombstone.id, value.id]).toEqual([phoneGone, phone]);
      expect(tombstone.superseded_at).toBeNull();
      expect(value.superseded_at).toBe(tombstone.created_at);
    });

    it("requires entity, collection and key", async () => {
      const res = await t.app.inject({
        url: "/document/history?entity=acme&collection=customer_facts",
        headers,
      });
      expect(res.statusCode).toBe(422);
    });
  });

  describe("GET /delta and POST /cursor", () => {
    it("replays every change ascending by seq, then advances with the cursor", async () => {
      const first = await get("/delta?consumer=c1&limit=3");
      expect(first.scope_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(first.records).toHaveLength(3);
      const seqs = first.records.map((r: any) => r.seq);
      expect(seqs).toEqual([...seqs].sort((a: number, b: number) => a - b));
      expect(first.next_cursor).toBe(seqs[2]);
      expect(Object.keys(first.records[0]).sort()).toEqual([...TIMELINE_ROW, "entity"].sort());
      // Without a cursor move the same page comes back.
      expect((await get("/delta?consumer=c1&limit=3")).records).toEqual(first.records);
      const moved = await t.app.inject({
        method: "POST",
        url: "/cursor",
        headers,
        payload: { consumer: "c1", position: first.next_cursor, scope_hash: first.scope_hash },
      });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(moved.json()).toMatchObject({ consumer: "c1", position: first.next_cursor });
      const second = await get("/delta?consumer=c1&limit=3");
      expect(second.records[0].seq).toBeGreaterThan(first.next_cursor);
    });

    it("includes tombstones and unready rows but not _system unless asked", async () => {
      const all = await get("/delta?consumer=c-all&limit=100");
      expect(all.records.some((r: any) => r.tombstone)).toBe(true);
      expect(all.records.some((r: any) => !r.ready)).toBe(true);
      expect(all.records.some((r: any) => r.collection === "_system")).toBe(false);
      const system = await get("/delta?consumer=c-sys&limit=100&include_system=true");
      expect(system.records.some((r: any) => r.collection === "_system")).toBe(true);
      expect(system.scope_hash).not.toBe(all.scope_hash);
    });

    it("filters by entity and collection", async () => {
      const body = await get("/delta?consumer=c-f&entity=globex&limit=100");
      expect(body.records.map((r: any) => r.entity)).toEqual(["globex"]);
    });

    it("refuses a cursor moving backwards with 409 cursor_regression unless forced", async () => {
      const page = await get("/delta?consumer=c2&limit=4");
      const post = (payload: object) => t.app.inject({ method: "POST", url: "/cursor", headers, payload });
      expect((await post({ consumer: "c2", position: 4, scope_hash: page.scope_hash })).statusCode).toBe(200);
      const back = await post({ consumer: "c2", position: 2, scope_hash: page.scope_hash });
      expect(back.statusCode).toBe(409);
      expect(back.json().code).toBe("cursor_regression");
      expect(
        (await post({ consumer: "c2", position: 2, scope_hash: page.scope_hash, force: true })).statusCode,
      ).toBe(200);
    });

    it("refuses another scope for a consumer with 409 cursor_scope unless forced", async () => {
      const page = await get("/delta?consumer=c3&limit=2");
      const post = (payload: object) => t.app.inject({ method: "POST", url: "/cursor", headers, payload });
      await post({ consumer: "c3", position: page.next_cursor, scope_hash: page.scope_hash });
      const other = await t.app.inject({ url: "/delta?consumer=c3&entity=globex", headers });
      expect(other.statusCode).toBe(409);
      expect(other.json().code).toBe("cursor_scope");
      const scoped = await get("/delta?consumer=c3-new&entity=globex");
      const mismatch = await post({
        consumer: "c3",
        position: page.next_cursor,
        scope_hash: scoped.scope_hash,
      });
      expect(mismatch.statusCode).toBe(409);
      expect(mismatch.json().code).toBe("cursor_scope");
      const forced = await post({ consumer: "c3", position: 0, scope_hash: scoped.scope_hash, force: true });
      expect(forced.statusCode).toBe(200);
      expect((await t.app.inject({ url: "/delta?consumer=c3&entity=globex", headers })).statusCode).toBe(200);
    });

    it("refuses a position beyond the newest seq", async () => {
      const page = await get("/delta?consumer=c4");
      const res = await t.app.inject({
        method: "POST",
        url: "/cursor",
        headers,
        payload: { consumer: "c4", position: 1_000_000, scope_hash: page.scope_hash },
      });
      expect(res.statusCode).toBe(422);
    });

    it("requires a consumer", async () => {
      expect((await t.app.inject({ url: "/delta", headers })).statusCode).toBe(422);
    });
  });

  describe("workspace isolation", () => {
    it("shows another workspace nothing of these records", async () => {
      const other = await t.workspace("reads-other");
      await t.publishExample(other.headers);
      expect((await get("/timeline?entity=acme", other.headers)).records).toEqual([]);
      expect((await get("/document?entity=acme", other.headers)).beliefs).toEqual([]);
      expect(
        (await get("/document/history?entity=acme&collection=customer_facts&key=plan", other.headers))
          .versions,
      ).toEqual([]);
      expect((await get("/delta?consumer=x", other.headers)).records).toEqual([]);
      expect((await t.app.inject({ url: `/records/${planNew}`, headers: other.headers })).statusCode).toBe(
        404,
      );
    });
  });
});
