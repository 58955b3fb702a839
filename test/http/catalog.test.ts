import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { MINIMAL_PACKAGE, minimalFiles, PACKAGE_YAML, PROFILES_YAML } from "../support/catalog-files.js";

describe("POST /catalog and GET /catalog", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const publish = (payload: unknown, query = "") =>
    t.app.inject({ method: "POST", url: `/catalog${query}`, headers, payload: payload as object });
  const current = () => t.app.inject({ url: "/catalog", headers });

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("catalog"));
  });
  afterAll(() => t.close());

  it("answers 409 no_catalog before anything is published", async () => {
    const res = await current();
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("no_catalog");
  });

  it("dry_run reports compatibility and installs nothing", async () => {
    const res = await publish({ package: MINIMAL_PACKAGE, files: minimalFiles() }, "?dry_run=true");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      verdict: "invisible",
      publishable: true,
      blockers: [],
      changes: [],
      warnings: [],
    });
    expect((await current()).statusCode).toBe(409);
  });

  let firstHash = "";

  it("publishes a package", async () => {
    const res = await publish({ package: MINIMAL_PACKAGE, files: minimalFiles() });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      workspace: "catalog",
      package: MINIMAL_PACKAGE,
      loaded: true,
      rewritten_records: 0,
      warnings: [],
    });
    expect(body.catalog_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(body.files).sort()).toEqual(Object.keys(minimalFiles()).sort());
    firstHash = body.catalog_hash;
    const got = (await current()).json();
    expect(got).toMatchObject({ package: MINIMAL_PACKAGE, catalog_hash: firstHash });
    expect(got.metadata.counts.collections).toBe(2);
  });

  it("republishing the same package is idempotent", async () => {
    const res = await publish({ package: MINIMAL_PACKAGE, files: minimalFiles() });
    expect(res.json().catalog_hash).toBe(firstHash);
    const { rows } = await t.db.query("SELECT count(*)::int AS n FROM catalog_installs");
    expect(rows[0]).toEqual({ n: 1 });
  });

  it("refuses an invalid upload with 422, file and path, and keeps the previous catalog", async () => {
    const res = await publish({
      package: MINIMAL_PACKAGE,
      files: minimalFiles({
        "search_profiles/main.yaml": PROFILES_YAML.replace("engine: postgres", "engine: solr"),
      }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers["content-type"]).toContain("application/problem+json");
    expect(res.json()).toMatchObject({
      status: 422,
      code: "definition_invalid",
      file: "search_profiles/main.yaml",
      path: "search_profiles.0.engine",
    });
    expect((await current()).json().catalog_hash).toBe(firstHash);
  });

  it("refuses answerable collections on more search profiles than an answer can fuse", async () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `p${i + 1}`);
    const catalog = (profiles: string[]) =>
      minimalFiles({
        "search_profiles/main.yaml": `search_profiles:\n${["main", ...profiles]
          .map((name) => `  - { name: ${name}, engine: postgres, embedding: embed, text_config: english }\n`)
          .join("")}`,
        "collections/more.yaml": `collections:\n${profiles
          .map(
            (name) =>
              `  - { name: c_${name}, version: 1, active: true, mode: event, schema: { type: object }, search_profile: ${name}, answerable: true }\n`,
          )
          .join("")}`,
        "packages/demo-pack.yaml": PACKAGE_YAML.replace(
          "collections: [notes@1, facts@1]",
          `collections: [notes@1, facts@1, ${profiles.map((name) => `c_${name}@1`).join(", ")}]`,
        ).replace("search_profiles: [main]", `search_profiles: [main, ${profiles.join(", ")}]`),
      });
    const eight = await publish({ package: MINIMAL_PACKAGE, files: catalog(names(8)) }, "?dry_run=true");
    expect(eight.statusCode, eight.body).toBe(200);
    const nine = await publish({ package: MINIMAL_PACKAGE, files: catalog(names(9)) }, "?dry_run=true");
    expect(nine.statusCode, nine.body).toBe(422);
    expect(nine.json()).toMatchObject({ code: "definition_invalid", file: "collections/more.yaml" });
    expect(nine.json().detail).toContain("9 search profiles");
  });

  it("refuses a text configuration the database does not have", async () => {
    const res = await publish({
      package: MINIMAL_PACKAGE,
      files: minimalFiles({
        "search_profiles/main.yaml": PROFILES_YAML.replace("text_config: english", "text_config: klingon"),
      }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      file: "search_profiles/main.yaml",
      path: "search_profiles.0.text_config",
    });
  });

  it.each([
    ["no files", { package: MINIMAL_PACKAGE }],
    ["no package", { files: minimalFiles() }],
    ["a non-text file", { package: MINIMAL_PACKAGE, files: { "conf/models.yaml": 5 } }],
    ["an unknown body field", { package: MINIMAL_PACKAGE, files: minimalFiles(), force: true }],
  ])("refuses a body with %s as request_schema", async (_name, body) => {
    const res = await publish(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("request_schema");
  });

  it("rolls back by publishing the earlier package again", async () => {
    const v2Files = {
      ...minimalFiles(),
      "packages/demo-pack-2.yaml": PACKAGE_YAML.replace("1.0.0", "2.0.0").replace(
        "[notes@1, facts@1]",
        "[notes@1]",
      ),
    };
    const v2 = await publish({ package: "demo-pack@2.0.0", files: v2Files });
    expect(v2.statusCode).toBe(200);
    expect((await current()).json().package).toBe("demo-pack@2.0.0");
    const back = await publish({ package: MINIMAL_PACKAGE, files: minimalFiles() });
    expect(back.json().catalog_hash).toBe(firstHash);
    expect((await current()).json()).toMatchObject({ package: MINIMAL_PACKAGE, catalog_hash: firstHash });
  });

  it("keeps catalogs per workspace", async () => {
    const other = await t.workspace("catalog-other");
    const res = await t.app.inject({ url: "/catalog", headers: other.headers });
    expect(res.statusCode).toBe(409);
  });

  it("GET /catalog/compatibility reports on the installed catalog", async () => {
    const res = await t.app.inject({ url: "/catalog/compatibility", headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ verdict: "invisible", publishable: true, blockers: [] });
  });
});
