// POST /catalog?dry_run=true&diff=true (docs/api.md "POST /catalog"): beside the compatibility
// report, what the publish would change among the definitions: added, removed and changed ones
// (both normalized forms), the manifest as "package" when it changed; nothing is installed, and
// diff without dry_run is 422.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";

const NEW_VIEW = `
  - name: recent_notes
    version: 1
    active: true
    description: The newest events of a customer.
    parameters:
      customer: { type: string, required: true }
    query: { mode: recent, k: 5, scope: { collections: [customer_events], entities: ["{{customer}}"] } }
`;

describe("the catalog dry run's diff", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let example: { package: string; files: Record<string, string> };
  const publish = (payload: unknown, query = "") =>
    t.app.inject({ method: "POST", url: `/catalog${query}`, headers, payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("diffed"));
    example = await exampleRequest();
  });
  afterAll(() => t.close());

  it("before the first publish, every definition is added", async () => {
    const res = await publish(example, "?dry_run=true&diff=true");
    expect(res.statusCode, res.body).toBe(200);
    const { diff } = res.json();
    expect(diff.from).toBeNull();
    expect(diff.to).toBe("support@1.0.0");
    expect(diff.added).toContain("views:customer_history@1");
    expect(diff.removed).toEqual([]);
    expect(diff.changed).toEqual([]);
  });

  it("names an added view, a changed view with both forms, and the changed manifest", async () => {
    expect((await publish(example)).statusCode).toBe(200);
    const files = { ...example.files };
    files["views/support.yaml"] = `${files["views/support.yaml"]}${NEW_VIEW}`;
    files["packages/support.yaml"] = (files["packages/support.yaml"] as string)
      .replace("version: 1.0.0", "version: 1.1.0")
      .replace("  - orphan_pages@1", "  - orphan_pages@1\n  - recent_notes@1");
    files["views/support.yaml"] = files["views/support.yaml"].replace(
      "limit: { type: integer, default: 10,",
      "limit: { type: integer, default: 12,",
    );
    const res = await publish({ package: "support@1.1.0", files }, "?dry_run=true&diff=true");
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.verdict).toBeDefined();
    expect(body.diff).toMatchObject({
      from: "support@1.0.0",
      to: "support@1.1.0",
      added: ["views:recent_notes@1"],
      removed: [],
    });
    const changed = Object.fromEntries(
      (body.diff.changed as { id: string; before: any; after: any }[]).map((c) => [c.id, c]),
    );
    expect(Object.keys(changed).sort()).toEqual(["package", "views:customer_history@1"]);
    expect(changed["views:customer_history@1"]?.before.parameters.limit.default).toBe(10);
    expect(changed["views:customer_history@1"]?.after.parameters.limit.default).toBe(12);
    expect(changed.package?.after.views).toContain("recent_notes@1");
    // Nothing was installed.
    expect((await t.app.inject({ url: "/catalog", headers })).json().package).toBe("support@1.0.0");
  });

  it("a publish of the installed catalog changes nothing; diff without dry_run is 422", async () => {
    const same = await publish(example, "?dry_run=true&diff=true");
    expect(same.json().diff).toMatchObject({ added: [], removed: [], changed: [] });
    const misplaced = await publish(example, "?diff=true");
    expect(misplaced.statusCode).toBe(422);
    expect(misplaced.json().errors.map((e: { path: string }) => e.path)).toEqual(["querystring.diff"]);
  });
});
