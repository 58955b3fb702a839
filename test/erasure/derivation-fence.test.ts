// Erasure holds off derivation work: a queued job of the entity is cancelled, and a run that is
// waiting on its model when the erasure commits writes nothing afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireCatalog } from "../../src/catalog/index.js";
import { createModels } from "../../src/models/index.js";
import {
  derivationFiles,
  derivationHarness,
  derivationYaml,
  gatedDeriveWorker,
  type Harness,
} from "../support/derivations.js";
import { waitFor } from "../support/wait.js";

const CITE_ALL = {
  records: [{ key: "summary", text: "Digest of the notes", citations: "{{evidence.ids}}" }],
};

describe("erasure and derivations", () => {
  let h: Harness;
  // The model call of the run in flight waits until the test releases it.
  let gated: ReturnType<typeof gatedDeriveWorker>;

  const note = (entity: string, text: string) => ({ collection: "notes", entity, type: "note", text });
  const job = async (id: string) => (await h.get(`/jobs/${id}`)).json();
  const finished = (id: string) =>
    waitFor(async () => ["succeeded", "dead", "cancelled"].includes((await job(id)).state));
  const countOf = async (entity: string) =>
    (
      await h.t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND entity = $2",
        [h.ws.id, entity],
      )
    ).rows[0]?.n;

  beforeAll(async () => {
    h = await derivationHarness("erase-fence", derivationFiles([derivationYaml("digest")]));
    const catalog = await requireCatalog(h.t.db, h.ws.id);
    const real = createModels(catalog.index.models.def, { endpoints: [], fakeScript: { digest: CITE_ALL } });
    gated = gatedDeriveWorker(h.t.db, real);
  });
  afterAll(async () => {
    await gated.worker.stop();
    await h.close();
  });

  it("cancels the entity's queued derivation job", async () => {
    await h.write([note("fay", "Fay called twice")]);
    const queued = (await h.post("/processors/digest/run", { entity: "fay" })).json();
    const res = await h.post("/erase", { entity: "fay" });
    expect(res.statusCode, res.body).toBe(200);
    const { rows } = await h.t.db.query<{ derivation_jobs_cancelled: number }>(
      "SELECT (content->>'derivation_jobs_cancelled')::int AS derivation_jobs_cancelled FROM records WHERE workspace_id = $1 AND id = $2",
      [h.ws.id, res.json().audit_id],
    );
    expect(rows[0]?.derivation_jobs_cancelled).toBe(1);
    expect(await job(queued.job_id)).toMatchObject({ state: "cancelled" });
  });

  it("a run in flight during an entity erasure writes nothing for the erased entity", async () => {
    await gated.worker.start();
    const { entered, release } = gated.gate();
    await h.write([note("eve", "Eve asked for a refund"), note("eve", "Eve renewed")]);
    const queued = (await h.post("/processors/digest/run", { entity: "eve" })).json();
    await entered;
    expect((await job(queued.job_id)).state).toBe("running");
    expect((await h.post("/erase", { entity: "eve" })).statusCode).toBe(200);
    release();
    await finished(queued.job_id);
    const ended = await job(queued.job_id);
    expect(ended.state).toBe("cancelled");
    expect(ended.last_error).toContain("erasure");
    expect(await countOf("eve")).toBe(0);
    // The entity's runs went with it.
    expect((await h.get("/runs?entity=eve")).json().runs).toEqual([]);
  });

  it("a run in flight when some of its evidence is erased is cancelled and writes nothing", async () => {
    const { entered, release } = gated.gate();
    const [gone] = (await h.write([note("gus", "Gus moved offices"), note("gus", "Gus pays yearly")])) as [
      string,
      string,
    ];
    const queued = (await h.post("/processors/digest/run", { entity: "gus" })).json();
    await entered;
    expect((await h.post("/erase", { records: [gone] })).json().deleted).toBe(1);
    release();
    await finished(queued.job_id);
    expect((await job(queued.job_id)).state).toBe("cancelled");
    const runs = (await h.get("/runs?entity=gus")).json().runs;
    expect(runs).toMatchObject([{ status: "failed", failure: "cancelled" }]);
    expect(await countOf("gus")).toBe(1);
    // The next run reads what remains and writes normally.
    gated.gate().release();
    const next = (await h.post("/processors/digest/run", { entity: "gus" })).json();
    await finished(next.job_id);
    expect((await job(next.job_id)).state).toBe("succeeded");
    expect(await countOf("gus")).toBe(2);
  });
});
