import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimJobs } from "../../src/worker/queue.js";
import {
  derivationFiles,
  derivationHarness,
  derivationYaml,
  type Harness,
  runJobs,
  WEIGHT_PROCESSOR,
} from "../support/derivations.js";

const SECRET_TEXT = "zebra-marmalade-7781 says the password is tulip";
const PROMPT_TEXT = "Summarize what the notes say about the entity.";

describe("derivation requests", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await derivationHarness(
      "derive-requests",
      derivationFiles(
        [
          derivationYaml("digest"),
          derivationYaml("tiny", {
            limits:
              "{ max_tasks: 1, max_llm_calls: 1, max_retrieved_records: 50, max_visible_records: 50, max_total_tokens: 20, max_wall_s: 60 }",
          }),
          derivationYaml("narrow", {
            limits:
              "{ max_tasks: 1, max_llm_calls: 1, max_retrieved_records: 2, max_visible_records: 2, max_total_tokens: 20000, max_wall_s: 60 }",
            sources: "      notes: { kind: snapshot, collections: [notes], max_records: 2 }",
          }),
        ],
        {
          processors: WEIGHT_PROCESSOR,
        },
      ),
    );
  });
  afterAll(() => h.close());

  it("POST /processors/{name}/run answers 202 and coalesces concurrent requests into one live job", async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => h.post("/processors/digest/run", { entity: "burst" })),
    );
    expect(replies.map((r) => r.statusCode)).toEqual(Array(8).fill(202));
    const bodies = replies.map((r) => r.json());
    expect(new Set(bodies.map((b) => b.job_id)).size).toBe(1);
    expect(bodies.filter((b) => !b.coalesced)).toHaveLength(1);
    expect(bodies.filter((b) => b.coalesced).every((b) => b.enqueued === false)).toBe(true);
    const job = (await h.get(`/jobs/${bodies[0].job_id}`)).json();
    expect(job).toMatchObject({ kind: "derive", state: "queued" });
  });

  it("never runs two jobs of one derivation and entity at once", async () => {
    const first = (await h.post("/processors/digest/run", { entity: "solo" })).json();
    const claimed = await claimJobs(h.t.db, {
      owner: "test-a",
      kinds: ["derive"],
      leaseSeconds: 60,
      limit: 10,
    });
    expect(claimed.map((job) => job.id)).toContain(first.job_id);
    const second = (await h.post("/processors/digest/run", { entity: "solo" })).json();
    expect(second.coalesced).toBe(false);
    const more = await claimJobs(h.t.db, { owner: "test-b", kinds: ["derive"], leaseSeconds: 60, limit: 10 });
    expect(more.map((job) => job.id)).not.toContain(second.job_id);
    await h.t.db.query("UPDATE jobs SET state = 'succeeded' WHERE workspace_id = $1 AND kind = 'derive'", [
      h.ws.id,
    ]);
  });

  it("refuses an enrichment processor with 422 and an unknown name with 404", async () => {
    const enrichment = await h.post("/processors/weight/run", { entity: "x" });
    expect(enrichment.statusCode).toBe(422);
    expect(enrichment.json().code).toBe("request_schema");
    const unknown = await h.post("/processors/nope/run", { entity: "x" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe("not_found");
    expect((await h.post("/processors/digest/run", {})).statusCode).toBe(422);
    expect((await h.post("/processors/digest/run", { entity: " " })).statusCode).toBe(422);
  });

  it("stops a run before it would pass max_total_tokens: no model call, nothing written", async () => {
    await h.write([
      { collection: "notes", entity: "limited", type: "note", text: "A note long enough to need tokens" },
    ]);
    const { run, job } = await h.derive("tiny", "limited", {});
    expect(run).toMatchObject({ status: "failed", failure: "limits" });
    expect(run.failure_detail).toMatch(/max_total_tokens/);
    expect(run.model_usage.calls).toBe(0);
    expect(run.output_ids).toEqual([]);
    expect(job.state).toBe("dead");
  });

  it("fails source_too_large when a snapshot holds more than its bounds", async () => {
    await h.write(
      [1, 2, 3].map((i) => ({
        collection: "notes",
        entity: "big",
        type: "note",
        text: `Snapshot note ${i}`,
      })),
    );
    const { run } = await h.derive("narrow", "big", {});
    expect(run).toMatchObject({ status: "failed", failure: "source_too_large", source_kind: "snapshot" });
    expect(run.model_usage.calls).toBe(0);
  });

  it("rebind reset and carry repoint the watermark and write a _system audit with both source hashes", async () => {
    await h.write([{ collection: "notes", entity: "bound", type: "note", text: "Moved to the pro plan" }]);
    const { run } = await h.derive("digest", "bound", {
      digest: { records: [{ key: "summary", text: "Pro", citations: "{{evidence.ids}}" }] },
    });
    const watermark = run.read_receipt.watermark_to;
    const carry = await h.post("/derivations/digest/rebind", { entity: "bound", policy: "carry" });
    expect(carry.statusCode, carry.body).toBe(200);
    expect(carry.json()).toMatchObject({
      derivation: "digest",
      entity: "bound",
      policy: "carry",
      old_source_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      new_source_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      watermark_seq: watermark,
    });
    const reset = (await h.post("/derivations/digest/rebind", { entity: "bound", policy: "reset" })).json();
    expect(reset.watermark_seq).toBe(0);
    const audits = (await h.get("/timeline?entity=bound&include_system=true&collections=_system")).json()
      .records;
    expect(audits.map((a: { id: string }) => a.id)).toEqual([reset.audit_id, carry.json().audit_id]);
    const audit = (await h.get(`/records/${reset.audit_id}`)).json();
    expect(audit).toMatchObject({ collection: "_system", type: "rebind" });
    expect(audit.content).toMatchObject({
      derivation: "digest",
      policy: "reset",
      old_source_hash: reset.old_source_hash,
    });
    // After a reset the next run reads the evidence again.
    const again = await h.derive("digest", "bound", {
      digest: { records: [{ key: "summary", text: "Pro again", citations: "{{evidence.ids}}" }] },
    });
    expect(again.run.status).toBe("succeeded");
    expect(again.run.visible_sources[0].record_ids).toHaveLength(1);
    expect((await h.post("/derivations/nope/rebind", { entity: "bound", policy: "reset" })).statusCode).toBe(
      404,
    );
    expect(
      (await h.post("/derivations/digest/rebind", { entity: "bound", policy: "later" })).statusCode,
    ).toBe(422);
  });

  it("no run or job response holds a prompt, evidence text or a model reply", async () => {
    await h.write([{ collection: "notes", entity: "secret", type: "note", text: SECRET_TEXT }]);
    await h.derive("digest", "secret", {
      digest: {
        records: [{ key: "summary", text: "Reply text 5521 from the model", citations: ["not-an-id"] }],
      },
    });
    await h.derive("digest", "secret", {});
    const bodies: string[] = [];
    const runs = (await h.get("/runs?limit=100")).json().runs;
    bodies.push(JSON.stringify(runs));
    for (const run of runs) {
      bodies.push((await h.get(`/runs/${run.id}`)).body);
      if (run.job_id) bodies.push((await h.get(`/jobs/${run.job_id}`)).body);
    }
    const all = bodies.join("\n");
    expect(all).not.toContain("zebra-marmalade");
    expect(all).not.toContain(PROMPT_TEXT);
    expect(all).not.toContain("Reply text 5521");
    await runJobs(h.t.db, h.ws.id, {});
  });

  it("GET /runs filters and pages newest first; GET /runs/{id} pages its output", async () => {
    const all = (await h.get("/runs?limit=100")).json().runs;
    expect(all.map((r: { seq: number }) => r.seq)).toEqual(
      [...all.map((r: { seq: number }) => r.seq)].sort((a, b) => b - a),
    );
    const page = (await h.get("/runs?limit=2")).json();
    expect(page.runs).toHaveLength(2);
    const next = (await h.get(`/runs?limit=2&before_seq=${page.next_before_seq}`)).json();
    expect(next.runs[0].seq).toBeLessThan(page.runs[1].seq);
    expect(
      (await h.get("/runs?status=failed"))
        .json()
        .runs.every((r: { status: string }) => r.status === "failed"),
    ).toBe(true);
    expect(
      (await h.get("/runs?source=snapshot"))
        .json()
        .runs.every((r: { processor: string }) => r.processor === "narrow"),
    ).toBe(true);
    expect((await h.get("/runs?entity=bound&processor=digest")).json().runs).toHaveLength(2);
    const succeeded = (await h.get("/runs?entity=bound&status=succeeded&limit=1")).json().runs[0];
    const empty = (await h.get(`/runs/${succeeded.id}?output_offset=5`)).json();
    expect(empty).toMatchObject({ output_ids: [], output_total: 1, output_offset: 5, records: [] });
    expect((await h.get("/runs/00000000-0000-4000-8000-000000000000")).statusCode).toBe(404);
    expect((await h.get("/runs?status=maybe")).statusCode).toBe(422);
  });
});
