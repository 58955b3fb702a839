import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

// The console's files over HTTP (the browser suite in test/console drives the pages themselves).
describe("GET /console", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("serves one page for /console and every deep link, without a key, under a strict CSP", async () => {
    for (const url of [
      "/console",
      "/console/",
      "/console/entity?entity=a%2Fb&tab=timeline",
      "/console/x/y",
    ]) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toContain("text/html");
      expect(res.headers["content-security-policy"]).toMatch(/^default-src 'self'; frame-ancestors 'none'/);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["referrer-policy"]).toBe("no-referrer");
      // Scripts only by src, from the server itself.
      expect(res.body).toContain('<script type="module" src="/console/assets/console.js"></script>');
      expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|style=|https?:\/\//);
    }
  });

  it("serves the bundle and stylesheet built from console/src, and 404 for any other asset", async () => {
    const js = await t.app.inject({ url: "/console/assets/console.js" });
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toContain("text/javascript");
    expect(js.body).toContain("engram.console.key");
    expect(js.body).not.toMatch(/\bimport\s*["(]/); // one self-contained bundle: nothing fetched at run time
    const css = await t.app.inject({ url: "/console/assets/console.css" });
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toContain("text/css");
    const icon = await t.app.inject({ url: "/console/assets/icon.svg" });
    expect(icon.headers["content-type"]).toContain("image/svg+xml");
    const missing = await t.app.inject({ url: "/console/assets/../../package.json" });
    expect(missing.statusCode).not.toBe(500);
    const other = await t.app.inject({ url: "/console/assets/other.js" });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ code: "not_found" });
  });

  it("stays out of the API contract: no key needed, not in /openapi.json, other methods refused", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    expect(Object.keys(doc.paths).some((path) => path.startsWith("/console"))).toBe(false);
    const post = await t.app.inject({ method: "POST", url: "/console" });
    expect(post.statusCode).toBe(405);
    // The API beside it still wants a key.
    expect((await t.app.inject({ url: "/workspace" })).statusCode).toBe(401);
  });
});
