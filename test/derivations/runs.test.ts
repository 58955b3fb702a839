import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { derivationFiles, derivationHarness, derivationYaml, type Harness } from "../support/derivations.js";

const CITE_ALL = {
  records: [{ key: "summary", text: "Two notes about billing", citations: "{{evidence.ids}}" }],
};
const STRICT_EMIT =
  "{ from: strict, collection: facts, type: digest, keys: [summary, risk], complete: true }";

describe("a derivation run", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await derivationHarness(
      "derive-runs",
      derivationFiles([derivationYaml("digest"), derivationYaml("strict", { emit: STRICT_EMIT })]),
    );
  });
  afterAll(() => h.close());

  it("writes records that cite the evidence shown, with provenance, depth and run id", async () => {
    const notes = await h.write([
      { collection: "notes", entity: "acme", type: "note", text: "Invoice 12 was paid late" },
      { collection: "notes", entity: "acme", type: "note", text: "Asked about the billing portal" },
    ]);
    const { job, run } = await h.derive("digest", "acme", { digest: CITE_ALL });
    expect(run.status, JSON.stringify([run.failure, run.failure_detail])).toBe("succeeded");
    expect(job.state).toBe("succeeded");
    expect(job.successful_run_id).toBe(run.id);
    expect(run).toMatchObject({
      operation: "derive",
      processor: "digest",
      entity: "acme",
      source_kind: "changes",
    });
    expect(run.output_ids).toHaveLength(1);
    const record = (await h.get(`/records/${run.output_ids[0]}`)).json();
    expect(record).toMatchObject({
      collection: "facts",
      key: "summary",
      type: "digest",
      run_id: run.id,
      depth: 1,
    });
    expect(record.status).toBe("active");
    expect([...record.citations].sort()).toEqual([...notes].sort());
    expect([...record.derived_from].sort()).toEqual([...notes].sort());
    expect([...run.citations].sort()).toEqual([...notes].sort());
    expect(run.records.map((r: { id: string }) => r.id)).toEqual(run.output_ids);
    expect(run.content.candidate_set).toEqual({
      covered_keys: ["summary"],
      divergence: [{ key: "summary", change: "added" }],
    });
    expect(run.read_receipt.watermark_to).toBeGreaterThan(0);
    expect(run.visible_sources.find((s: { source: string }) => s.source === "notes").record_ids).toEqual(
      notes,
    );
    expect(run.definition_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(run.config_hash).toMatch(/^[0-9a-f]{64}$/);
    const doc = (await h.get("/document?entity=acme")).json();
    expect(doc.beliefs.map((b: { key: string }) => b.key)).toEqual(["summary"]);
  });

  it("skips without a model call when nothing new is above the watermark", async () => {
    const { run, job } = await h.derive("digest", "acme", {});
    expect(run.status).toBe("skipped");
    expect(run.model_usage.calls).toBe(0);
    expect(job.state).toBe("succeeded");
    expect(job.successful_run_id).toBeNull();
  });

  it("reads only evidence above the watermark on the next run, and sees its own output as current state", async () => {
    const [note] = await h.write([
      { collection: "notes", entity: "acme", type: "note", text: "Renewal is due in May" },
    ]);
    const { run } = await h.derive("digest", "acme", {
      digest: {
        records: [{ key: "risk", text: "Renewal due", citations: ["{{evidence.0}}", "{{evidence.-1}}"] }],
      },
    });
    expect(run.status).toBe("succeeded");
    const notes = run.visible_sources.find((s: { source: string }) => s.source === "notes");
    expect(notes.record_ids).toEqual([note]);
    const facts = run.visible_sources.find((s: { source: string }) => s.source === "facts");
    expect(facts.record_ids).toHaveLength(1);
    expect(run.content.candidate_set.divergence).toEqual([{ key: "risk", change: "added" }]);
  });

  it("never writes a row citing an id that was not shown, and lists it as rejected", async () => {
    await h.write([{ collection: "notes", entity: "beta", type: "note", text: "Prefers email" }]);
    const unseen = "00000000-0000-4000-8000-000000000001";
    const { run } = await h.derive("digest", "beta", {
      digest: {
        records: [
          { key: "summary", text: "Prefers email", citations: ["{{evidence.0}}"] },
          { key: "risk", text: "Made up", citations: [unseen] },
          { key: "nope", text: "Not a declared key", citations: ["{{evidence.0}}"] },
          { key: "summary", text: "Twice", citations: ["{{evidence.0}}"] },
          { key: "risk", text: "", citations: ["{{evidence.0}}"] },
        ],
      },
    });
    expect(run.status).toBe("succeeded");
    expect(run.output_ids).toHaveLength(1);
    expect(run.emission.rejected.map((r: { index: number }) => r.index)).toEqual([1, 2, 3, 4]);
    expect(run.emission.rejected[0].reason).toMatch(/not shown/);
    const { rows } = await h.t.db.query(
      "SELECT id FROM records WHERE workspace_id = $1 AND $2 = ANY(citations)",
      [h.ws.id, unseen],
    );
    expect(rows).toEqual([]);
  });

  it("fails `emission` and writes nothing when every row is rejected", async () => {
    await h.write([{ collection: "notes", entity: "gamma", type: "note", text: "Asked for a refund" }]);
    const before = await count(h);
    const { run, job } = await h.derive("digest", "gamma", {
      digest: {
        records: [{ key: "summary", text: "x", citations: ["00000000-0000-4000-8000-000000000002"] }],
      },
    });
    expect(run).toMatchObject({ status: "failed", failure: "emission" });
    expect(run.output_ids).toEqual([]);
    expect(job.state).toBe("dead");
    expect(await count(h)).toBe(before);
  });

  it("with complete: true needs every declared key written or retracted, else writes nothing", async () => {
    await h.write([{ collection: "notes", entity: "delta", type: "note", text: "Churn risk is high" }]);
    const partial = await h.derive("strict", "delta", {
      strict: { records: [{ key: "summary", text: "High churn risk", citations: ["{{evidence.0}}"] }] },
    });
    expect(partial.run).toMatchObject({ status: "failed", failure: "emission" });
    expect(partial.run.failure_detail).toMatch(/risk/);
    const whole = await h.derive("strict", "delta", {
      strict: {
        records: [
          { key: "summary", text: "High churn risk", citations: ["{{evidence.0}}"] },
          { key: "risk", retract: true, citations: ["{{evidence.0}}"] },
        ],
      },
    });
    expect(whole.run.status).toBe("succeeded");
    const doc = (await h.get("/document?entity=delta")).json();
    expect(doc.beliefs.map((b: { key: string }) => b.key)).toEqual(["summary"]);
    expect(doc.retractions.map((r: { key: string }) => r.key)).toEqual(["risk"]);
  });

  it("classifies malformed output as model_output and writes nothing", async () => {
    await h.write([{ collection: "notes", entity: "epsilon", type: "note", text: "Called support twice" }]);
    const before = await count(h);
    const missing = await h.derive("digest", "epsilon", {});
    expect(missing.run).toMatchObject({ status: "failed", failure: "model_output" });
    expect(missing.run.model_usage.calls).toBe(2);
    const wrongShape = await h.derive("digest", "epsilon", { digest: { records: "not a list" } });
    expect(wrongShape.run).toMatchObject({ status: "failed", failure: "model_output" });
    expect(wrongShape.job.state).toBe("dead");
    expect(await count(h)).toBe(before);
  });
});

async function count(h: Harness): Promise<number> {
  const { rows } = await h.t.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND collection = 'facts'",
    [h.ws.id],
  );
  return rows[0]?.n ?? 0;
}
