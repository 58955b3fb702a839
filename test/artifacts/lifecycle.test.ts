import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import {
  ARTIFACTS,
  type ArtifactHarness,
  artifactFiles,
  artifactHarness,
} from "../support/artifact-catalog.js";
import { derivationYaml, runJobs } from "../support/derivations.js";
import { enrichAll } from "../support/worker.js";

const REVIEWED = `  - name: reviewed_brief
    version: 1
    active: true
    lifecycle: reviewed
    parameters:
      customer: { type: string, required: true }
    blocks:
      facts: { entity: "{{customer}}", collections: [facts] }
    template: "{{facts}}"
    candidate: { derivation: review, keys: [summary] }
`;

const files = artifactFiles({
  "derivations/main.yaml": `derivations:\n${derivationYaml("review", {
    emit: "{ from: review, collection: facts, type: digest, keys: [summary], review: required }",
  })}${derivationYaml("onread", {
    trigger: "    trigger: { on: read }\n",
    emit: "{ from: onread, collection: facts, type: digest, keys: [risk] }",
  })}`,
  "artifacts/main.yaml": ARTIFACTS + REVIEWED,
  "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, snapshots@1, learning_signals@1]
views: [top_notes@1]
artifacts: [brief@1, tiny@1, dormant@1, reviewed_brief@1]
processors: [review, onread]
triggers: [onread.default]
search_profiles: [main]
`,
});

describe("artifact renders and derivations", () => {
  let h: ArtifactHarness;
  const render = async (name: string, body: object) => {
    const res = await h.post(`/artifacts/${name}/render`, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    h = await artifactHarness("artifact-lifecycle", { files });
  });
  afterAll(() => h.close());

  it("fires the entity's read triggers and reports freshness per entity read", async () => {
    await h.write([
      {
        collection: "notes",
        entity: "reader",
        type: "note",
        text: "Wants a refund",
        content: { priority: 2 },
      },
    ]);
    const { manifest } = await render("tiny", { customer: "reader" });
    const onread = manifest.freshness.find((f: { derivation: string }) => f.derivation === "onread");
    expect(onread).toEqual({
      entity: "reader",
      derivation: "onread",
      watermark_seq: 0,
      dirty: true,
      unready: 0,
      job: { id: expect.any(String), state: "queued" },
    });
    expect((await h.get(`/jobs/${onread.job.id}`)).json().state).toBe("queued");
    const { rows } = await h.t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1 AND kind = 'derive' AND state = 'queued'",
      [h.ws.id],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("a reviewed artifact renders the promoted state: drafts only after POST /promote", async () => {
    await h.write([
      {
        collection: "notes",
        entity: "acme",
        type: "note",
        text: "Invoice 7 paid late",
        content: { priority: 1 },
      },
    ]);
    const review = await h.post("/processors/review/run", { entity: "acme" });
    expect(review.statusCode).toBe(202);
    await runJobs(h.t.db, h.ws.id, {
      review: { records: [{ key: "summary", text: "Pays late", citations: "{{evidence.ids}}" }] },
      onread: { records: [{ key: "risk", text: "low", citations: "{{evidence.ids}}" }] },
    });
    const runs = (await h.get("/runs?entity=acme&processor=review")).json().runs;
    expect(runs[0].status).toBe("succeeded");
    expect((await render("reviewed_brief", { customer: "acme" })).content).not.toContain("Pays late");
    const promoted = await h.post("/promote", {
      entity: "acme",
      source_run_id: runs[0].id,
      artifact: "reviewed_brief",
    });
    expect(promoted.statusCode, promoted.body).toBe(200);
    const after = await render("reviewed_brief", { customer: "acme" });
    expect(after.content).toContain("| Pays late");
    expect(after.manifest.record_ids).toContain(promoted.json().promoted[0].record_id);
  });

  it("promote resolves the artifact like a render: an unknown one is 404 artifact_not_found", async () => {
    const res = await h.post("/promote", {
      entity: "acme",
      source_run_id: "00000000-0000-4000-8000-000000000000",
      artifact: "dormant",
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe("artifact_not_found");
  });
});

describe("the example package's support_brief", () => {
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("demo-brief");
    headers = ws.headers;
    await t.publishExample(headers);
    await t.writeRecords(headers, [
      {
        collection: "customer_facts",
        entity: "cust-42",
        type: "fact",
        key: "plan",
        text: "Enterprise plan",
        content: { tier: "enterprise" },
      },
      {
        collection: "customer_events",
        entity: "cust-42",
        type: "ticket",
        text: "Refund for a double charge on the invoice",
        content: { channel: "email", priority: 4 },
      },
      {
        collection: "customer_events",
        entity: "cust-42",
        type: "call",
        text: "Asked how to export data",
        content: { channel: "phone", priority: 2 },
      },
    ]);
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  it("renders a customer's facts and the history that matches the question", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/artifacts/support_brief/render",
      headers,
      payload: { customer: "cust-42", question: "refund for the double charge" },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { content, manifest } = res.json();
    expect(content).toContain("You are helping customer cust-42 with: refund for the double charge");
    expect(content).toContain("customer_facts/fact key=plan");
    expect(content).toContain("| Enterprise plan");
    expect(content).toContain("| Refund for a double charge on the invoice");
    expect(manifest.blocks.facts.record_ids).toHaveLength(1);
    expect(manifest.blocks.history.record_ids.length).toBeGreaterThanOrEqual(1);
    expect(manifest.artifact).toMatchObject({ name: "support_brief", version: 1 });
  });
});
