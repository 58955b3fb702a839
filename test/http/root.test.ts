// GET / (docs/api.md "Service routes"): no key needed; a browser is sent to the console, anyone
// else gets the service's pointers as JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8";

describe("GET /", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("answers a program with JSON pointers, without a key and whatever key is sent", async () => {
    for (const headers of [
      {},
      { accept: "application/json" },
      { accept: "*/*" },
      { authorization: "Bearer egk_wrong" },
    ]) {
      const res = await t.app.inject({ url: "/", headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toContain("application/json");
      expect(res.json()).toEqual({
        name: "engram",
        version: "test",
        console: "/console",
        docs: "/docs",
        openapi: "/openapi.json",
      });
    }
  });

  it("redirects a browser (Accept naming text/html) to /console", async () => {
    for (const accept of [BROWSER_ACCEPT, "text/html", "TEXT/HTML; charset=utf-8"]) {
      const res = await t.app.inject({ url: "/", headers: { accept } });
      expect([accept, res.statusCode]).toEqual([accept, 302]);
      expect(res.headers.location).toBe("/console");
    }
  });

  it("is in /openapi.json as a public route, and other methods are 405", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    expect(doc.paths["/"].get.security).toEqual([]);
    const post = await t.app.inject({ method: "POST", url: "/", payload: {} });
    expect(post.statusCode).toBe(405);
  });
});
