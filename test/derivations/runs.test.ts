import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { MINIMAL_PACKAGE } from "../support/catalog-files.js";
import { derivationFiles, derivationYaml, runJobs } from "../support/derivations.js";

const CITE_ALL = {
  records: [{ key: "summary", text: "Two notes about billing", citations: "{{evidence.ids}}" }],
};

describe("a derivation run", () => {
  let t: TestApp;
  let ws: { id: string; headers: { authorization: string } };
  const post = (url: string, payload: unknown) =>
    t.app.inject({ method: "POST", url, headers: ws.headers, payload });
  const get = (url: string) => t.app.inject({ url, headers: ws.headers });
  const write = async (records: unknown[]) => {
    const res = await post("/records", { records });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().inserted.map((row: { id: string }) => row.id) as string[];
  };
  const derive = async (name: string, entity: string, script: Record<string, unknown>) => {
    const res = await post(`/processors/${name}/run`, { entity });
    expect(res.statusCode, res.body).toBe(202);
    await runJobs(t.db, ws.id, script);
    const job = (await get(`/jobs/${res.json().job_id}`)).json();
    const runs = (await get(`/runs?entity=${entity}&processor=${name}&limit=1`)).json().runs;
    return { job, run: (await get(`/runs/${runs[0].id}`)).json() };
  };

  beforeAll(async () => {
    t = await createTestApp();
    ws = await t.workspace("derive-runs");
    const res = await post("/catalog", {
      package: MINIMAL_PACKAGE,
      files: derivationFiles([
        derivationYaml("digest"),
        derivationYaml("strict", {
          emit: "{ from: strict, collection: facts, type: digest, keys: [summary, risk], complete: true }",
        }),
      ]),
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  it("writes records that cite the evidence shown, with provenance, depth and run id", async () => {
    const notes = await write([
      { collection: "notes", entity: "acme", type: "note", text: "Invoice 12 was paid late" },
      { collection: "notes", entity: "acme", type: "note", text: "Asked about the billing portal" },
    ]);
    const { job, run } = await derive("digest", "acme", { digest: CITE_ALL });
    expect(run.status, JSON.stringify([run.failure, run.failure_detail, run.emission])).toBe("succeeded");
    expect(job.state).toBe("succeeded");
    expect(job.successful_run_id).toBe(run.id);
    expect(run.output_ids).toHaveLength(1);
    const record = (await get(`/records/${run.output_ids[0]}`)).json();
    expect(record).toMatchObject({
      collection: "facts",
      key: "summary",
      type: "digest",
      run_id: run.id,
      depth: 1,
    });
    expect([...record.citations].sort()).toEqual([...notes].sort());
    expect([...record.derived_from].sort()).toEqual([...notes].sort());
    expect(run.citations.sort()).toEqual([...notes].sort());
    const doc = (await get("/document?entity=acme")).json();
    expect(doc.beliefs.map((b: { key: string }) => b.key)).toEqual(["summary"]);
  });

  it("skips without a model call when nothing new is above the watermark", async () => {
    const { run, job } = await derive("digest", "acme", {});
    expect(run.status).toBe("skipped");
    expect(run.model_usage.calls).toBe(0);
    expect(job.successful_run_id).toBeNull();
  });
});
