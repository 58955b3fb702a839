import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeExpiredUses } from "../../src/artifacts/index.js";
import {
  ARTIFACTS,
  type ArtifactHarness,
  artifactFiles,
  artifactHarness,
} from "../support/artifact-catalog.js";
import { derivationYaml, runJobs } from "../support/derivations.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const DAY_MS = 86_400_000;

// The artifact catalog plus a derivation that writes the facts the learning block reads.
const files = artifactFiles({
  "derivations/main.yaml": `derivations:\n${derivationYaml("profile", {
    emit: "{ from: profile, collection: facts, type: digest, keys: [summary] }",
  })}`,
  "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, snapshots@1, learning_signals@1]
views: [top_notes@1]
artifacts: [brief@1, tiny@1, dormant@1]
processors: [profile]
search_profiles: [main]
`,
});

describe("artifact uses and feedback", () => {
  let h: ArtifactHarness;
  let use: Record<string, any>;
  const feedback = (id: string, body: object) => h.post(`/artifact-uses/${id}/feedback`, body);

  beforeAll(async () => {
    h = await artifactHarness("artifact-uses", { files, env: { ARTIFACT_USE_RETENTION_DAYS: "3" } });
    await h.write([
      { collection: "notes", entity: "acme", type: "ticket", text: "Pays late", content: { priority: 3 } },
      { collection: "facts", entity: "acme", type: "fact", key: "plan", text: "Pro plan" },
    ]);
    const run = await h.post("/processors/profile/run", { entity: "acme" });
    expect(run.statusCode, run.body).toBe(202);
    await runJobs(h.t.db, h.ws.id, {
      profile: { records: [{ key: "summary", text: "Late payer on Pro", citations: "{{evidence.ids}}" }] },
    });
    const res = await h.post("/artifacts/brief/uses", { parameters: { customer: "acme" } });
    expect(res.statusCode, res.body).toBe(200);
    use = res.json();
  });
  afterAll(() => h.close());

  it("returns the render with its hash, telemetry, learning target and expiry", async () => {
    const render = (await h.post("/artifacts/brief/render", { customer: "acme" })).json();
    const listed = (await h.get("/artifacts"))
      .json()
      .artifacts.find((a: { name: string }) => a.name === "brief");
    expect(use.content).toBe(render.content);
    expect(use.render_sha256).toBe(sha256(use.content));
    expect(use.artifact).toEqual({ name: "brief", version: 1, definition_hash: listed.hash });
    expect(use.snapshot_id).toBeNull();
    expect(use.telemetry).toEqual({
      "engram.use.id": use.id,
      "engram.artifact.name": "brief",
      "engram.artifact.version": 1,
      "engram.artifact.definition_hash": listed.hash,
      "engram.artifact.render_sha256": use.render_sha256,
    });
    expect(use.render).toEqual({ tokens: render.manifest.tokens, truncated: false });
    expect(Date.parse(use.expires_at) - Date.parse(use.created_at)).toBe(3 * DAY_MS);
    expect(use.expired).toBe(false);

    const doc = (await h.get("/document?entity=acme&collections=facts")).json();
    const summary = doc.beliefs.find((b: { key: string }) => b.key === "summary");
    const plan = doc.beliefs.find((b: { key: string }) => b.key === "plan");
    const runId = (await h.get(`/records/${summary.id}`)).json().run_id;
    expect(runId).toEqual(expect.any(String));
    expect(use.learning_target).toEqual({
      artifact: { name: "brief", version: 1, definition_hash: listed.hash, kind: "prompt" },
      entity: "acme",
      block: "facts",
      heads: [
        { collection: "facts", key: "plan", record_id: plan.id, run_id: null },
        { collection: "facts", key: "summary", record_id: summary.id, run_id: runId },
      ],
      base_run_id: runId,
    });
  });

  it("GET /artifact-uses/{id} shows the metadata, never the render", async () => {
    const res = await h.get(`/artifact-uses/${use.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const { content: _content, ...metadata } = use;
    expect(res.json()).toEqual(metadata);
    expect(res.body).not.toContain("Late payer");
  });

  it("has no learning target without heads in the learning block", async () => {
    const res = await h.post("/artifacts/brief/uses", { parameters: { customer: "nobody" } });
    expect(res.json().learning_target).toBeNull();
  });

  it("snapshots when asked, and refuses snapshot true without a target", async () => {
    const res = await h.post("/artifacts/brief/uses", { parameters: { customer: "acme" }, snapshot: true });
    expect(res.statusCode, res.body).toBe(200);
    const current = (await h.get("/artifacts/brief?customer=acme")).json();
    expect(res.json().snapshot_id).toBe(current.snapshot_id);
    expect(res.json().content).toBe(current.content);
    const refused = await h.post("/artifacts/tiny/uses", {
      parameters: { customer: "acme" },
      snapshot: true,
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBe("artifact_snapshot");
  });

  it("writes feedback as one learning_signals record citing the learning heads", async () => {
    const res = await feedback(use.id, {
      kind: "correction",
      source: "end_user",
      score: 0.25,
      comment: "The plan is Enterprise now",
      expected: "Enterprise",
      execution_refs: ["trace-1"],
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      record_id: expect.any(String),
      ready: true,
      duplicate: false,
      collection: "learning_signals",
      entity: "artifact:brief",
      type: "correction",
      artifact_use: use.id,
    });
    const record = (await h.get(`/records/${body.record_id}`)).json();
    const heads = use.learning_target.heads.map((head: { record_id: string }) => head.record_id);
    expect(record).toMatchObject({
      collection: "learning_signals",
      entity: "artifact:brief",
      type: "correction",
      text: "The plan is Enterprise now",
      derived_from: heads,
      citations: heads,
    });
    expect(record.content).toMatchObject({
      kind: "correction",
      source: "end_user",
      score: 0.25,
      expected: "Enterprise",
    });
  });

  it("is idempotent on dedupe_key, and refuses the same key with another payload", async () => {
    const body = { kind: "thumbs_up", source: "application", dedupe_key: "turn-7" };
    const first = (await feedback(use.id, body)).json();
    const again = await feedback(use.id, body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ ...first, duplicate: true });
    const conflict = await feedback(use.id, { ...body, kind: "thumbs_down" });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().code).toBe("dedupe_conflict");
  });

  it("refuses invalid feedback with 422 request_schema", async () => {
    const cases: [object, string][] = [
      [{ source: "end_user" }, "kind"],
      [{ kind: "meh", source: "end_user" }, "kind"],
      [{ kind: "thumbs_up", source: "robot" }, "source"],
      [{ kind: "thumbs_up", source: "end_user", score: 1.5 }, "score"],
      [{ kind: "thumbs_up", source: "end_user", execution_refs: Array(9).fill("x") }, "execution_refs"],
      [{ kind: "thumbs_up", source: "end_user", comment: "x".repeat(4001) }, "comment"],
      [{ kind: "thumbs_up", source: "end_user", actual_excerpt: "x".repeat(16_001) }, "actual_excerpt"],
      [{ kind: "thumbs_up", source: "end_user", mood: "ok" }, "mood"],
    ];
    for (const [body, path] of cases) {
      const res = await feedback(use.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe("request_schema");
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });

  it("answers 404 artifact_use_not_found for unknown uses and other workspaces' uses; 422 for a malformed id", async () => {
    const other = await h.t.workspace("artifact-uses-other");
    const theirs = await h.t.app.inject({
      method: "GET",
      url: `/artifact-uses/${use.id}`,
      headers: other.headers,
    });
    const missing = await h.get("/artifact-uses/00000000-0000-4000-8000-000000000000");
    for (const res of [theirs, missing]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe("artifact_use_not_found");
    }
    expect(theirs.json().detail.replace(use.id, "ID")).toBe(
      missing.json().detail.replace(/[0-9a-f-]{36}/, "ID"),
    );
    const theirFeedback = await h.t.app.inject({
      method: "POST",
      url: `/artifact-uses/${use.id}/feedback`,
      headers: other.headers,
      payload: { kind: "thumbs_up", source: "end_user" },
    });
    expect(theirFeedback.statusCode).toBe(404);
    const malformed = await h.get("/artifact-uses/not-a-uuid");
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().code).toBe("request_schema");
  });

  it("expires: feedback 410 artifact_use_expired, then the worker's purge removes it", async () => {
    const made = (await h.post("/artifacts/brief/uses", { parameters: { customer: "acme" } })).json();
    // Time passes: the use's expiry moves into the past.
    await h.t.db.query(
      "UPDATE artifact_uses SET expires_at = now() - interval '1 second' WHERE workspace_id = $1 AND id = $2",
      [h.ws.id, made.id],
    );
    expect((await h.get(`/artifact-uses/${made.id}`)).json().expired).toBe(true);
    const res = await feedback(made.id, { kind: "thumbs_up", source: "end_user" });
    expect(res.statusCode).toBe(410);
    expect(res.json().code).toBe("artifact_use_expired");
    expect(await purgeExpiredUses(h.t.db, 500)).toBe(1);
    expect((await h.get(`/artifact-uses/${made.id}`)).statusCode).toBe(404);
    expect((await h.get(`/artifact-uses/${use.id}`)).statusCode).toBe(200);
  });

  it("purges at most ARTIFACT_USE_PURGE_BATCH uses per pass", async () => {
    const made = await Promise.all(
      [1, 2, 3].map(async () =>
        (await h.post("/artifacts/tiny/uses", { parameters: { customer: "acme" } })).json(),
      ),
    );
    await h.t.db.query(
      "UPDATE artifact_uses SET expires_at = now() - interval '1 day' WHERE id = ANY($1::uuid[])",
      [made.map((m) => m.id)],
    );
    expect(await purgeExpiredUses(h.t.db, 2)).toBe(2);
    expect(await purgeExpiredUses(h.t.db, 2)).toBe(1);
    expect(await purgeExpiredUses(h.t.db, 2)).toBe(0);
  });
});

describe("feedback without a learning_signals collection", () => {
  it("answers 422 learning_signals_unavailable", async () => {
    const files = artifactFiles({
      "artifacts/main.yaml": ARTIFACTS.replace("    learning: { block: facts }\n", ""),
      "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, snapshots@1]
views: [top_notes@1]
artifacts: [brief@1, tiny@1, dormant@1]
search_profiles: [main]
`,
    });
    const h = await artifactHarness("artifact-no-signals", { files });
    try {
      const use = (await h.post("/artifacts/tiny/uses", { parameters: { customer: "acme" } })).json();
      const res = await h.post(`/artifact-uses/${use.id}/feedback`, {
        kind: "thumbs_up",
        source: "end_user",
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe("learning_signals_unavailable");
    } finally {
      await h.close();
    }
  });
});
