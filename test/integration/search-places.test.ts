// Search profiles indexed differently in one catalog (docs/api.md "Scope"): a search spans the
// collections of one place (profiles with the same engine, embedding, text_config and text_rank);
// a search naming no collections is refused when the defaults lie in several places, and a
// publish says so beforehand; GET /context and POST /answer search each place and fuse them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { catalogWithFragment } from "../support/langgraph-fragment.js";
import { enrichAll } from "../support/worker.js";

const ITEMS_ENTITY = "langgraph_items:memories/alice/";

describe("a catalog whose search profiles are indexed differently", () => {
  let t: TestApp;
  let ws: { id: string; headers: { authorization: string } };
  const inject = (method: "GET" | "POST", url: string, payload?: object) =>
    t.app.inject({ method, url, headers: ws.headers, payload });
  let published: { warnings: string[] };

  beforeAll(async () => {
    t = await createTestApp();
    ws = await t.workspace("places");
    await t.publishExample(ws.headers);
    // The LangGraph fragment, its profile with another text configuration: a second place.
    const request = await catalogWithFragment();
    const profile = "search_profiles/langgraph.yaml";
    request.files[profile] = (request.files[profile] as string).replace(
      "text_config: english",
      "text_config: simple",
    );
    const dry = await inject("POST", "/catalog?dry_run=true", request);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json().warnings).toEqual([expect.stringContaining("search profiles langgraph; support")]);
    const res = await inject("POST", "/catalog", request);
    expect(res.statusCode, res.body).toBe(200);
    published = res.json();
    await t.writeRecords(ws.headers, [
      {
        collection: "customer_events",
        entity: "acme",
        type: "ticket",
        text: "The window seat upgrade was refused",
        content: { channel: "email", topic: "seats", priority: 2 },
      },
      {
        collection: "langgraph_items",
        entity: ITEMS_ENTITY,
        type: "item",
        key: "seat",
        text: "prefers window seats",
        content: { namespace: ["memories", "alice"], value: { text: "prefers window seats" } },
      },
    ]);
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  it("warns at publish that a search naming no collections will be refused", () => {
    expect(published.warnings).toHaveLength(1);
    expect(published.warnings[0]).toContain("indexed in 2 different ways");
    expect(published.warnings[0]).toContain("GET /context and POST /answer");
  });

  it("refuses a search naming no collections with 422, naming the profiles and the way out", async () => {
    for (const res of [
      await inject("POST", "/search", { mode: "hybrid", q: "window seat", k: 5 }),
      await inject("GET", "/search?q=window%20seat"),
    ]) {
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe("request_schema");
      expect(res.body).toContain("search profiles indexed differently (langgraph, support");
    }
  });

  it("searches one place, or both as fused sources", async () => {
    const one = await inject("POST", "/search", {
      mode: "hybrid",
      q: "window seat",
      k: 5,
      scope: { collections: ["customer_events", "customer_facts"] },
    });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().profiles).toEqual(["support"]);
    const both = await inject("POST", "/search", {
      q: "window seat",
      k: 5,
      sources: [
        { name: "support", mode: "hybrid", k: 5, scope: { collections: ["customer_events"] } },
        { name: "items", mode: "hybrid", k: 5, scope: { collections: ["langgraph_items"] } },
      ],
      fuse: { kind: "rrf" },
    });
    expect(both.statusCode, both.body).toBe(200);
    expect(both.json().profiles).toEqual(["langgraph", "support"]);
  });

  it("answers GET /context for an entity of either place, each searched in its own place", async () => {
    const components = async (entity: string) => {
      const res = await inject("GET", `/context?entity=${encodeURIComponent(entity)}&task=window%20seat`);
      expect([entity, res.statusCode]).toEqual([entity, 200]);
      const byName = new Map<string, string[]>(
        res.json().components.map((c: { name: string; record_ids: string[] }) => [c.name, c.record_ids]),
      );
      return byName;
    };
    // acme's ticket is found by the search of the support place.
    expect((await components("acme")).get("relevant")).toHaveLength(1);
    // The item is a current belief: shown in state, so relevant (which the search of the
    // langgraph place fed) does not repeat it.
    const items = await components(ITEMS_ENTITY);
    expect(items.get("state")).toHaveLength(1);
    expect(items.get("relevant")).toEqual([]);
  });
});
