import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { derivationFiles, derivationHarness, derivationYaml, type Harness } from "../support/derivations.js";

const ARTIFACTS = `artifacts:
  - name: brief
    version: 1
    active: true
    kind: prompt
    lifecycle: reviewed
    parameters:
      customer: { type: string, required: true }
    blocks:
      facts: { entity: "{{customer}}", collections: [facts] }
    template: "{{facts}}"
    candidate: { derivation: review, keys: [summary] }
`;

const SUMMARY = {
  review: {
    records: [{ key: "summary", text: "Pays late, asks for invoices", citations: "{{evidence.ids}}" }],
  },
};

describe("promotion of a reviewed run's drafts", () => {
  let h: Harness;
  const promote = (body: object) => h.post("/promote", body);

  beforeAll(async () => {
    h = await derivationHarness(
      "derive-promote",
      derivationFiles(
        [
          derivationYaml("review", {
            emit: "{ from: review, collection: facts, type: digest, keys: [summary], review: required }",
          }),
        ],
        { extraFiles: { "artifacts/main.yaml": ARTIFACTS }, packageExtra: "artifacts: [brief@1]" },
      ),
    );
  });
  afterAll(() => h.close());

  it("writes drafts, then active successors when the live heads still match; drafts and originals stay", async () => {
    await h.write([
      { collection: "notes", entity: "acme", type: "note", text: "Invoice 7 paid 20 days late" },
    ]);
    const { run } = await h.derive("review", "acme", SUMMARY);
    expect(run.status).toBe("succeeded");
    const draftId = run.output_ids[0];
    expect((await h.get(`/records/${draftId}`)).json().status).toBe("draft");
    expect((await h.get("/document?entity=acme")).json().beliefs).toEqual([]);
    expect((await h.get("/document?entity=acme&status=draft")).json().beliefs[0].id).toBe(draftId);

    const res = await promote({ entity: "acme", source_run_id: run.id, artifact: "brief" });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ source_run_id: run.id, entity: "acme", already_promoted: false });
    expect(body.promoted).toEqual([{ key: "summary", draft_id: draftId, record_id: expect.any(String) }]);
    const active = (await h.get(`/records/${body.promoted[0].record_id}`)).json();
    expect(active).toMatchObject({ status: "active", key: "summary", text: "Pays late, asks for invoices" });
    expect(active.run_id).toBe(body.promotion_run_id);
    expect((await h.get(`/records/${draftId}`)).json().status).toBe("draft");
    expect((await h.get("/document?entity=acme")).json().beliefs[0].id).toBe(active.id);
    const promotion = (await h.get(`/runs/${body.promotion_run_id}`)).json();
    expect(promotion).toMatchObject({ operation: "promote", status: "succeeded", source_run_id: run.id });
    expect((await h.get("/runs?operation=promote")).json().runs.map((r: { id: string }) => r.id)).toContain(
      body.promotion_run_id,
    );

    const again = await promote({ entity: "acme", source_run_id: run.id, artifact: "brief" });
    expect(again.json()).toEqual({ ...body, already_promoted: true });
  });

  it("answers 409 promotion_stale and writes nothing when a live head changed since the run read it", async () => {
    await h.write([{ collection: "notes", entity: "beta", type: "note", text: "Wants annual billing" }]);
    const { run } = await h.derive("review", "beta", SUMMARY);
    await h.write([
      { collection: "facts", entity: "beta", type: "fact", key: "summary", text: "Set by hand" },
    ]);
    const { rows: before } = await h.t.db.query(
      "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1",
      [h.ws.id],
    );
    const res = await promote({ entity: "beta", source_run_id: run.id, artifact: "brief" });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("promotion_stale");
    const { rows: after } = await h.t.db.query(
      "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1",
      [h.ws.id],
    );
    expect(after).toEqual(before);
    expect((await h.get("/runs?operation=promote&entity=beta")).json().runs).toEqual([]);
  });

  it("refuses an unknown artifact, another entity and an unknown run", async () => {
    await h.write([{ collection: "notes", entity: "gamma", type: "note", text: "Opened a ticket" }]);
    const { run } = await h.derive("review", "gamma", SUMMARY);
    expect((await promote({ entity: "gamma", source_run_id: run.id, artifact: "nope" })).json().code).toBe(
      "artifact_not_found",
    );
    const other = await promote({ entity: "acme", source_run_id: run.id, artifact: "brief" });
    expect(other.statusCode).toBe(422);
    const unknown = await promote({
      entity: "gamma",
      source_run_id: "00000000-0000-4000-8000-000000000009",
      artifact: "brief",
    });
    expect(unknown.statusCode).toBe(422);
    expect(
      (await promote({ entity: "gamma", source_run_id: "not-a-uuid", artifact: "brief" })).statusCode,
    ).toBe(422);
  });
});
