// A client's catalog fragment beside the package's own (docs/api.md "Scope"): the LangGraph
// store's fragment brings a second search profile, indexed like the example's, so publishing it
// into the demo workspace keeps every README command working, the client quick start included,
// and GET /context answers for every entity.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEngram, startEngram } from "../support/engram-serve.js";
import { catalogWithFragment } from "../support/langgraph-fragment.js";
import { readmeCurls } from "../support/readme.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("the LangGraph fragment published into the demo workspace", { timeout: 60_000 }, () => {
  let server: RunningEngram;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    server = await startEngram();
    const request = await catalogWithFragment();
    const dry = await call("POST", "/catalog?dry_run=true", request);
    expect(dry.status).toBe(200);
    // Its profile is indexed like the example's: one place, nothing to warn of.
    expect((await dry.json()).warnings).toEqual([]);
    const published = await call("POST", "/catalog", request);
    expect(published.status, await published.clone().text()).toBe(200);
    expect((await published.json()).warnings).toEqual([]);
  }, 60_000);
  afterAll(() => server?.stop());

  it("answers every curl command of the README with a success", async () => {
    const curls = (await readmeCurls({ KEY: server.key })).filter((c) => !c.url.startsWith("/metrics"));
    expect(curls.length).toBeGreaterThanOrEqual(10);
    for (const curl of curls) {
      const res = await fetch(`${server.url}${curl.url}`, {
        method: curl.method,
        headers: curl.headers,
        body: curl.body,
      });
      expect([curl.command, res.status < 300]).toEqual([curl.command, true]);
    }
    // The unscoped search spans both profiles.
    const search = await call("POST", "/search", { mode: "hybrid", q: "card declined", k: 5 });
    expect(search.status).toBe(200);
    expect((await search.json()).profiles).toEqual(["langgraph", "support"]);
  });

  it("answers GET /context for every entity, items of the store's collection included", async () => {
    const stored = await call("POST", "/records", {
      records: [
        {
          collection: "langgraph_items",
          entity: "langgraph_items:memories/alice/",
          type: "item",
          key: "seat",
          text: "prefers window seats",
          content: { namespace: ["memories", "alice"], value: { text: "prefers window seats" } },
        },
      ],
    });
    expect(stored.status).toBe(200);
    const entities = (await (await call("GET", "/entities?limit=100")).json()).entities.map(
      (e: { entity: string }) => e.entity,
    );
    expect(entities).toContain("langgraph_items:memories/alice/");
    for (const entity of entities) {
      const res = await call(
        "GET",
        `/context?entity=${encodeURIComponent(entity)}&task=${encodeURIComponent("seat refund")}`,
      );
      expect([entity, res.status]).toEqual([entity, 200]);
    }
  });

  it("runs the README's client quick start as written, in a plain .mjs", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const snippet = /## Clients[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toContain('from "@engram/client"');
    // As a user would save it: the TypeScript non-null mark dropped, and the mirror the snippet
    // applies pages to defined.
    const script = `const mirror = { apply: async () => {} };\n${(snippet as string).replace("ENGRAM_API_KEY!", "ENGRAM_API_KEY")}`;
    const dir = await mkdtemp(join(ROOT, ".readme-snippet-"));
    try {
      await writeFile(join(dir, "readme-snippet.mjs"), script.replace("http://127.0.0.1:8080", server.url));
      const { stdout } = await promisify(execFile)(process.execPath, ["readme-snippet.mjs"], {
        cwd: dir,
        env: { ...process.env, ENGRAM_API_KEY: server.key },
      });
      // The timeline printed acme's rows; the answer's refusal (the example's fake model cannot
      // answer) printed its status and code.
      expect(stdout).toContain("Refund requested for a duplicate charge");
      expect(stdout).toContain("502 answer_model");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
