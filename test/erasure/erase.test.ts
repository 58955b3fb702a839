// POST /erase: request rules, explicit-id erasure with a derived closure across entities, the
// ERASE_MAX_RECORDS bound, snapshots and learning targets built on erased records.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ArtifactHarness, artifactHarness } from "../support/artifact-catalog.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const MAX = 6;

describe("POST /erase", () => {
  let h: ArtifactHarness;
  const note = (entity: string, text: string, extra: object = {}) => ({
    collection: "notes",
    entity,
    type: "note",
    text,
    content: { priority: 1 },
    ...extra,
  });
  const fact = (entity: string, key: string, text: string, extra: object = {}) => ({
    collection: "facts",
    entity,
    type: "fact",
    key,
    text,
    ...extra,
  });
  const status = async (id: string) => (await h.get(`/records/${id}`)).statusCode;
  const systemCount = async () =>
    (
      await h.t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND collection = '_system'",
        [h.ws.id],
      )
    ).rows[0]?.n;

  beforeAll(async () => {
    h = await artifactHarness("erase-requests", { env: { ERASE_MAX_RECORDS: String(MAX) } });
  });
  afterAll(() => h.close());

  it("refuses anything but exactly one of entity or a non-empty list of record ids", async () => {
    const [id] = await h.write([note("kept", "Stays")]);
    for (const body of [
      {},
      { entity: "kept", records: [id] },
      { entity: "" },
      { entity: "   " },
      { records: [] },
      { records: ["not-a-uuid"] },
      { entity: "kept", extra: true },
    ]) {
      const res = await h.post("/erase", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe("request_schema");
    }
    expect(await status(id as string)).toBe(200);
    expect(await systemCount()).toBe(0);
  });

  it("erases explicit ids with their derived closure across entities, three levels deep", async () => {
    const [n1, n2] = (await h.write([note("p1", "First"), note("p1", "Second")])) as [string, string];
    const [f1] = (await h.write([fact("p2", "k", "Level one", { derived_from: [n1] })])) as [string];
    const [f2] = (await h.write([fact("p3", "k", "Level two", { derived_from: [f1, n2] })])) as [string];
    const [n3] = (await h.write([note("p4", "Level three", { derived_from: [f2] })])) as [string];
    const res = await h.post("/erase", { records: [n1.toUpperCase()] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ deleted: 4, affected_entities: 4 });
    for (const id of [n1, f1, f2, n3]) expect(await status(id)).toBe(404);
    expect(await status(n2)).toBe(200);
    const audit = (await h.get(`/records/${res.json().audit_id}`)).json();
    expect(audit.content).toEqual({
      mode: "records",
      requested: 1,
      record_ids_sha256: sha256(n1),
      deleted: 4,
      derived: 3,
      affected_entities: 4,
      heads_restored: 0,
      derivation_jobs_cancelled: 0,
    });
    // Erasing again finds nothing: the ids are gone either way.
    const again = await h.post("/erase", { records: [n1] });
    expect(again.statusCode).toBe(200);
    expect(again.json().deleted).toBe(0);
  });

  it("never erases an erasure audit by id", async () => {
    const [id] = (await h.write([note("p5", "To go")])) as [string];
    const audit = (await h.post("/erase", { records: [id] })).json().audit_id;
    const res = await h.post("/erase", { records: [audit] });
    expect(res.json().deleted).toBe(0);
    expect(await status(audit)).toBe(200);
  });

  it("refuses a closure over ERASE_MAX_RECORDS with 409 erase_too_large and leaves everything in place", async () => {
    const seeds = await h.write([1, 2, 3, 4].map((i) => note("big", `Big ${i}`)));
    const derived = await h.write([
      fact("other", "a", "Derived a", { derived_from: [seeds[0]] }),
      fact("other", "b", "Derived b", { derived_from: [seeds[1]] }),
    ]);
    const [deepest] = await h.write([fact("third", "c", "Derived c", { derived_from: [derived[0]] })]);
    const before = await systemCount();
    const docBefore = (await h.get("/document?entity=other")).json();
    const res = await h.post("/erase", { entity: "big" });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: "erase_too_large", max_records: MAX });
    for (const id of [...seeds, ...derived, deepest]) expect(await status(id as string)).toBe(200);
    expect(await systemCount()).toBe(before);
    expect((await h.get("/document?entity=other")).json()).toEqual(docBefore);
    // The same bound counts explicit ids with their closure.
    expect((await h.post("/erase", { records: seeds })).statusCode).toBe(409);
    const smaller = await h.post("/erase", { records: [seeds[0]] });
    expect(smaller.json().deleted).toBe(3);
  });

  it("removes snapshots built on erased records and forgets them in learning targets", async () => {
    const [plan] = (await h.write([fact("carl", "plan", "Carl is on the gold plan")])) as [string];
    const use = (await h.post("/artifacts/brief/uses", { parameters: { customer: "carl" } })).json();
    expect(use.learning_target.heads.map((head: { record_id: string }) => head.record_id)).toEqual([plan]);
    const snapshot = await h.post("/artifacts/brief/snapshot", { customer: "carl" });
    expect(snapshot.statusCode, snapshot.body).toBe(200);
    expect((await h.get("/artifacts/brief?customer=carl")).statusCode).toBe(200);

    const res = await h.post("/erase", { records: [plan] });
    expect(res.json().deleted).toBe(2);
    expect(await status(snapshot.json().record_id)).toBe(404);
    const current = await h.get("/artifacts/brief?customer=carl");
    expect(current.statusCode).toBe(404);
    expect(current.json().code).toBe("snapshot_not_found");
    const { rows } = await h.t.db.query("SELECT 1 FROM artifact_snapshots WHERE workspace_id = $1", [
      h.ws.id,
    ]);
    expect(rows).toEqual([]);
    expect((await h.get(`/artifact-uses/${use.id}`)).json().learning_target).toBeNull();
    const render = (await h.post("/artifacts/brief/render", { customer: "carl" })).json();
    expect(render.content).not.toContain("gold plan");
    // Feedback on the use still lands: it no longer cites the erased record.
    const feedback = await h.post(`/artifact-uses/${use.id}/feedback`, {
      kind: "correction",
      source: "end_user",
      score: 1,
    });
    expect(feedback.statusCode, feedback.body).toBeLessThan(300);
  });
});
