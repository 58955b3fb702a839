import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

const ALLOWED = "https://app.example.com";
const OTHER = "https://evil.example.net";
const MCP_HEADERS = { accept: "application/json, text/event-stream" };
const PING = { jsonrpc: "2.0", id: 1, method: "ping" };

describe("Origin validation (Authentication rule 5)", () => {
  let t: TestApp;
  let headers: { authorization: string };
  beforeAll(async () => {
    t = await createTestApp({
      env: { API_CORS_ORIGINS: `${ALLOWED},http://localhost:3000` },
      routes: [
        (app) => {
          app.get("/probe/ok", async () => ({ ok: true }));
        },
      ],
    });
    ({ headers } = await t.workspace("origins"));
  });
  afterAll(() => t.close());

  it("gives an allowed origin the CORS allow header", async () => {
    const res = await t.app.inject({ url: "/probe/ok", headers: { ...headers, origin: ALLOWED } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
    expect(res.headers.vary).toContain("Origin");
  });

  it("answers an allowed preflight with methods and the requested headers, without a key", async () => {
    const res = await t.app.inject({
      method: "OPTIONS",
      url: "/mcp",
      headers: {
        origin: ALLOWED,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-protocol-version, mcp-param-x",
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
    expect(res.headers["access-control-allow-methods"]).toContain("POST");
    expect(res.headers["access-control-allow-headers"]).toContain("mcp-param-x");
  });

  it("gives any other origin no CORS header outside MCP", async () => {
    const res = await t.app.inject({ url: "/probe/ok", headers: { ...headers, origin: OTHER } });
    expect(res.statusCode).toBe(200);
    for (const name of Object.keys(res.headers)) expect(name).not.toMatch(/^access-control-/);
  });

  it("matches origins exactly (no prefix, suffix or scheme variants)", async () => {
    for (const origin of [`${ALLOWED}.evil.net`, "http://app.example.com", "https://app.example.com:8443"]) {
      const res = await t.app.inject({ url: "/probe/ok", headers: { ...headers, origin } });
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    }
  });

  it("refuses any other origin on /mcp with 403 origin_forbidden, keyed or not", async () => {
    for (const extra of [headers, {}]) {
      const res = await t.app.inject({
        method: "POST",
        url: "/mcp",
        headers: { ...extra, origin: OTHER },
        payload: {},
      });
      expect(res.statusCode).toBe(403);
      expect(res.headers["content-type"]).toContain("application/problem+json");
      expect(res.json()).toMatchObject({ status: 403, code: "origin_forbidden" });
    }
    const preflight = await t.app.inject({
      method: "OPTIONS",
      url: "/mcp",
      headers: { origin: OTHER, "access-control-request-method": "POST" },
    });
    expect(preflight.statusCode).toBe(403);
  });

  it("lets an allowed origin reach /mcp", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/mcp",
      headers: { ...headers, ...MCP_HEADERS, origin: ALLOWED },
      payload: PING,
    });
    expect(res.statusCode).toBe(200);
  });

  it("leaves requests without Origin unaffected", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/mcp",
      headers: { ...headers, ...MCP_HEADERS },
      payload: PING,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it.each([
    ["a single origin", ALLOWED],
    ["a JSON array", JSON.stringify([OTHER, ALLOWED])],
  ])("reads %s from API_CORS_ORIGINS", async (_form, value) => {
    const other = await createTestApp({ env: { API_CORS_ORIGINS: value }, testDb: t.testDb });
    try {
      const res = await other.app.inject({ url: "/health", headers: { origin: ALLOWED } });
      expect(res.headers["access-control-allow-origin"]).toBe(ALLOWED);
    } finally {
      await other.app.close();
    }
  });

  it("allows no origin when API_CORS_ORIGINS is empty", async () => {
    const other = await createTestApp({ testDb: t.testDb });
    try {
      const res = await other.app.inject({ url: "/health", headers: { origin: ALLOWED } });
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
      const mcp = await other.app.inject({ method: "POST", url: "/mcp", headers: { origin: ALLOWED } });
      expect(mcp.statusCode).toBe(403);
    } finally {
      await other.app.close();
    }
  });
});
