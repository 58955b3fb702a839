// Embedding models wider than pgvector indexes as `vector` (2,000 dimensions): OpenAI's
// text-embedding-3-large has 3,072, and some models more than halfvec's 4,000.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Worker } from "../../src/worker/runner.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { withEmbedder } from "../support/embedders.js";
import { exampleRequest } from "../support/example-catalog.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

describe.each([3072, 4500])("an embedding model of %i dimensions", (dimensions) => {
  let t: TestApp;
  let headers: { authorization: string };
  let worker: Worker;

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace(`wide-${dimensions}`));
    // Fake hashing embeds at any width.
    const request = withEmbedder(await exampleRequest(), "fake");
    const files = { ...request.files };
    files["conf/models.yaml"] = (files["conf/models.yaml"] as string)
      .replace("fake-embed-256", `fake-embed-${dimensions}`)
      .replace("dimensions: 256", `dimensions: ${dimensions}`)
      .replace("space: fake-256-v1", `space: fake-${dimensions}-v1`);
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { ...request, files },
    });
    expect(res.statusCode, res.body).toBe(200);
    worker = await startTestWorker(t.db);
  });
  afterAll(async () => {
    await worker?.stop();
    await t.close();
  });

  it("indexes a space pgvector can index as halfvec, and leaves a wider one (or any, on the exact layout) to an exact scan", async () => {
    const { rows } = await t.db.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE tablename = 'embeddings' AND indexdef LIKE $1",
      [`%fake-${dimensions}-v1%`],
    );
    expect(rows.map((row) => /halfvec\((\d+)\)/.exec(row.indexdef)?.[1])).toEqual(
      t.db.hasVector && dimensions <= 4000 ? [String(dimensions)] : [],
    );
  });

  it("publishes, enriches and finds nearest records", async () => {
    const ids = await t.writeRecords(headers, [
      { collection: "customer_events", entity: "c1", type: "ticket", text: "refund for the double charge" },
      { collection: "customer_events", entity: "c2", type: "ticket", text: "the export button is broken" },
    ]);
    await waitFor(async () => {
      const all = await Promise.all(
        ids.map(async (id) => (await t.app.inject({ url: `/records/${id}`, headers })).json().ready),
      );
      return all.every(Boolean);
    });
    const res = await t.app.inject({
      method: "POST",
      url: "/search",
      headers,
      payload: { mode: "vector", q: "export button broken", k: 2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().hits.map((h: { id: string }) => h.id)).toEqual([ids[1], ids[0]]);
  });
});
