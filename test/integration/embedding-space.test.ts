import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Worker } from "../../src/worker/runner.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const NEW_ALIAS = `  embed_v2:
    provider: local
    model: fake-embed-128
    dimensions: 128
    space: fake-128-v2
`;
const STAGING_PROCESSOR = `  - name: embedder_v2
    kind: embedding
    input: { collections: [customer_events, customer_facts, pages, syntheses] }
    model: embed_v2
`;

describe("embedding space cut-over", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let worker: Worker;
  let files: Record<string, string>;
  let version = 0;
  const publish = (edit: (f: Record<string, string>) => void) => {
    version++;
    const next = { ...files };
    edit(next);
    next["packages/support.yaml"] = (next["packages/support.yaml"] as string).replace(
      /version: [\d.]+/,
      `version: 2.${version}.0`,
    );
    return t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { package: `support@2.${version}.0`, files: next },
    });
  };
  const withAlias = (f: Record<string, string>) => {
    f["conf/models.yaml"] = (f["conf/models.yaml"] as string).replace("  chat:\n", `${NEW_ALIAS}  chat:\n`);
  };
  const switchProfile = (f: Record<string, string>) => {
    withAlias(f);
    f["search_profiles/support.yaml"] = (f["search_profiles/support.yaml"] as string).replace(
      "embedding: embed",
      "embedding: embed_v2",
    );
  };
  const withStaging = (f: Record<string, string>) => {
    f["processors/enrichment.yaml"] = `${f["processors/enrichment.yaml"]}\n${STAGING_PROCESSOR}`;
    f["packages/support.yaml"] = (f["packages/support.yaml"] as string).replace(
      "processors: [embedder, urgency, customer_profile]",
      "processors: [embedder, embedder_v2, urgency, customer_profile]",
    );
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("spaces"));
    files = (await exampleRequest()).files;
    await t.publishExample(headers);
    worker = await startTestWorker(t.db);
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers,
      payload: {
        records: [
          { collection: "customer_events", entity: "c", type: "ticket", text: "refund please" },
          {
            collection: "customer_facts",
            entity: "c",
            type: "fact",
            key: "plan",
            text: "pro",
            content: { value: "pro" },
          },
        ],
      },
    });
    const ids: string[] = res.json().inserted.map((i: any) => i.id);
    await waitFor(async () => {
      const all = await Promise.all(
        ids.map(async (id) => (await t.app.inject({ url: `/records/${id}`, headers })).json().ready),
      );
      return all.every(Boolean);
    });
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it("refuses to cut a profile over to a space its ready records lack, with 409 incomplete_space", async () => {
    const res = await publish(switchProfile);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: "incomplete_space",
      profile: "support",
      space: "fake-128-v2",
      missing: 2,
    });
  });

  it("cuts over once the new space is staged by a backfill", async () => {
    expect(
      (
        await publish((f) => {
          withAlias(f);
          withStaging(f);
        })
      ).statusCode,
    ).toBe(200);
    for (const collection of ["customer_events", "customer_facts"]) {
      const start = await t.app.inject({
        method: "POST",
        url: "/backfill",
        headers,
        payload: { collection, version: 1, processor: "embedder_v2" },
      });
      expect(start.statusCode).toBe(202);
      await waitFor(
        async () =>
          (await t.app.inject({ url: `/backfill/${start.json().id}`, headers })).json().state === "done",
      );
    }
    const res = await publish((f) => {
      switchProfile(f);
      withStaging(f);
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
