import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { hashJson } from "../../src/platform/hash.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";
import { exampleRequest } from "../support/example-catalog.js";

describe("GET /catalog/definitions", () => {
  let t: TestApp;
  let owner: { authorization: string };
  let other: { authorization: string };
  const definitions = (headers: { authorization: string }) =>
    t.app.inject({ url: "/catalog/definitions", headers });

  beforeAll(async () => {
    t = await createTestApp();
    owner = (await t.workspace("definitions-owner")).headers;
    other = (await t.workspace("definitions-other")).headers;
  });
  afterAll(() => t.close());

  it("answers 409 no_catalog before anything is published", async () => {
    const res = await definitions(owner);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("no_catalog");
  });

  it("answers every definition GET /catalog hashes, normalized, under the same ids and hashes", async () => {
    await t.publishExample(owner);
    const summary = (await t.app.inject({ url: "/catalog", headers: owner })).json();
    const res = await definitions(owner);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.package).toBe("support@1.0.0");
    expect(body.catalog_hash).toBe(summary.catalog_hash);
    expect(Object.keys(body.definitions).sort()).toEqual(Object.keys(summary.metadata.definitions).sort());
    for (const [id, def] of Object.entries(body.definitions)) {
      expect(hashJson(def), id).toBe(summary.metadata.definitions[id]);
    }
    // Normalized: defaults the YAML leaves out are filled in.
    const events = body.definitions["collections:customer_events@1"];
    expect(events).toMatchObject({ name: "customer_events", version: 1, active: true, mode: "event" });
    expect(body.definitions["derivations:customer_profile"].emit).toMatchObject({
      collection: "customer_facts",
      complete: false,
      review: "none",
    });
    expect(body.definitions["conf:rank"].formulas.hybrid).toBeDefined();
    const manifest = parse((await exampleRequest()).files["packages/support.yaml"] as string);
    expect(body.manifest).toMatchObject({ name: manifest.name, version: manifest.version });
    expect(body.manifest.collections).toEqual(manifest.collections);
  });

  it("answers each workspace its own catalog only", async () => {
    expect((await definitions(other)).statusCode).toBe(409);
    await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers: other,
      payload: { package: MINIMAL_PACKAGE, files: minimalFiles() },
    });
    const body = (await definitions(other)).json();
    expect(body.package).toBe(MINIMAL_PACKAGE);
    expect(Object.keys(body.definitions)).not.toContain("collections:customer_events@1");
    expect((await definitions(owner)).json().package).toBe("support@1.0.0");
  });

  it("follows a new publish", async () => {
    const base = await exampleRequest();
    const files = { ...base.files };
    files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
      "version: 1.0.0",
      "version: 1.0.1",
    );
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers: owner,
      payload: { package: "support@1.0.1", files },
    });
    expect(res.statusCode).toBe(200);
    const body = (await definitions(owner)).json();
    expect(body.package).toBe("support@1.0.1");
    expect(body.manifest.version).toBe("1.0.1");
    expect(body.catalog_hash).toBe(res.json().catalog_hash);
  });
});
