import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest, UNLISTED_VIEW } from "../support/example-catalog.js";

describe("GET /catalog/prune", () => {
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("prune"));
    const base = await exampleRequest();
    await t.app.inject({ method: "POST", url: "/catalog", headers, payload: base });
    await t.app.inject({
      method: "POST",
      url: "/records",
      headers,
      payload: {
        records: [
          { collection: "customer_facts", entity: "c", type: "fact", key: "plan", content: { value: "pro" } },
        ],
      },
    });
    // Version 2 of customer_facts becomes active; version 1 stays listed (its records keep it).
    const files = { ...base.files };
    const facts = / {2}- name: customer_facts\n[\s\S]*?(?=\n {2}- name: pages)/.exec(
      files["collections/support.yaml"] as string,
    )?.[0];
    files["collections/facts-v2.yaml"] =
      `collections:\n${(facts as string).replace("version: 1", "version: 2")}\n`;
    files["collections/support.yaml"] = (files["collections/support.yaml"] as string).replace(
      "  - name: customer_facts\n    version: 1\n    active: true",
      "  - name: customer_facts\n    version: 1\n    active: false",
    );
    files["packages/support.yaml"] = (files["packages/support.yaml"] as string)
      .replace("version: 1.0.0", "version: 2.0.0")
      .replace("  - customer_facts@1\n", "  - customer_facts@1\n  - customer_facts@2\n");
    files["views/unused.yaml"] = UNLISTED_VIEW;
    const res = await t.publish(headers, { package: "support@2.0.0", files });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  it("lists unlisted definitions as safe and protects versions that records still use", async () => {
    const res = await t.app.inject({ url: "/catalog/prune", headers });
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json();
    const byName = Object.fromEntries(report.candidates.map((c: any) => [c.definition, c]));
    expect(byName["views:unused_view@1"]).toMatchObject({
      listed: false,
      reference_kind: "none",
      safe_to_delete: true,
    });
    // Its records and the package's retention policy both still use version 1.
    expect(byName["collections:customer_facts@1"]).toMatchObject({
      listed: true,
      reference_kind: "records_and_definitions",
      safe_to_delete: false,
    });
    expect(byName["collections:customer_facts@1"].references).toContain("retentions:retracted_facts");
    expect(report.safe_to_delete).toContain("views:unused_view@1");
    expect(report.safe_to_delete).not.toContain("collections:customer_facts@1");
    expect(byName["collections:customer_facts@2"]).toBeUndefined();
  });

  it("writes go to the active version", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers,
      payload: {
        records: [
          { collection: "customer_facts", entity: "c", type: "fact", key: "plan", content: { value: "max" } },
        ],
      },
    });
    const id = res.json().inserted[0].id;
    expect((await t.app.inject({ url: `/records/${id}`, headers })).json().collection_version).toBe(2);
    const doc = (await t.app.inject({ url: "/document?entity=c", headers })).json();
    expect(doc.beliefs.map((b: any) => b.id)).toEqual([id]);
  });
});
