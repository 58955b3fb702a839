// Engram has no OAuth authorization server, and nothing it serves may send an MCP host looking for
// one: the discovery documents and the MCP authorization spec's default endpoints are plain 404s
// (with or without a key), and a 401 challenges with a bare Bearer realm. The official SDK's own
// discovery, run against a listening server, finds nothing.
import { discoverOAuthServerInfo, extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

const PROBLEM = "application/problem+json";
const CHALLENGE = 'Bearer realm="engram"';
const WRONG_KEY = "Bearer egk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

// Where RFC 9728, RFC 8414 and OpenID Connect discovery look, for the server and for its /mcp path.
const DISCOVERY_PATHS = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-authorization-server/mcp",
  "/.well-known/openid-configuration",
  "/.well-known/openid-configuration/mcp",
  "/mcp/.well-known/openid-configuration",
];
// The endpoints a client falls back to when it finds no metadata (MCP authorization, 2025-03-26).
const FALLBACK_ENDPOINTS = ["/register", "/authorize", "/token"];

let t: TestApp;
let key: string;
let url: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.workspace("oauth-discovery"));
  url = await t.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => t.close());

const CALLERS: [string, () => Record<string, string>][] = [
  ["without a key", () => ({})],
  ["with a wrong key", () => ({ authorization: WRONG_KEY })],
  ["with the workspace key", () => ({ authorization: `Bearer ${key}` })],
];

function expectNoAuthorizationServer(res: Awaited<ReturnType<TestApp["app"]["inject"]>>) {
  expect(res.statusCode).toBe(404);
  expect(res.headers["content-type"]).toContain(PROBLEM);
  expect(res.headers["www-authenticate"]).toBeUndefined();
  expect(res.json()).toEqual({
    type: "about:blank",
    title: "Not Found",
    status: 404,
    code: "not_found",
    detail: expect.stringContaining("no OAuth authorization server"),
  });
}

describe.each(CALLERS)("called %s", (_name, headers) => {
  it.each(DISCOVERY_PATHS)("GET %s is a plain 404 that advertises nothing", async (path) => {
    expectNoAuthorizationServer(await t.app.inject({ url: path, headers: headers() }));
  });

  it.each(FALLBACK_ENDPOINTS)("GET and POST %s are plain 404s", async (path) => {
    for (const method of ["GET", "POST"] as const) {
      const res = await t.app.inject({ method, url: path, headers: headers(), payload: {} });
      expectNoAuthorizationServer(res);
    }
  });
});

describe("a refused key on POST /mcp", () => {
  it.each([
    ["no key", {}],
    ["a wrong key", { authorization: WRONG_KEY }],
  ])("with %s is a 401 challenging with a bare Bearer realm", async (_name, headers) => {
    const res = await t.app.inject({
      method: "POST",
      url: "/mcp",
      headers: { ...headers, accept: "application/json, text/event-stream" },
      payload: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe("unauthorized");
    // No resource_metadata, scope or error parameter: nothing that names an authorization server.
    expect(res.headers["www-authenticate"]).toBe(CHALLENGE);
    expect(res.headers.link).toBeUndefined();
  });
});

describe("the official SDK's OAuth discovery against a listening Engram", () => {
  it("reads no parameters from the 401 challenge", async () => {
    const response = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(401);
    expect(extractWWWAuthenticateParams(response)).toEqual({});
  });

  it("finds neither protected resource metadata nor an authorization server", async () => {
    const info = await discoverOAuthServerInfo(new URL("/mcp", url));
    expect(info.resourceMetadata).toBeUndefined();
    expect(info.authorizationServerMetadata).toBeUndefined();
  });
});
