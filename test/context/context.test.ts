import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countRenderTokens } from "../../src/search/prompt-rows.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

interface Component {
  name: string;
  record_ids: string[];
  tokens: number;
  truncated: boolean;
}

describe("GET /context", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const facts: string[] = [];
  const events: string[] = [];
  const get = (query: string) => t.app.inject({ method: "GET", url: `/context?${query}`, headers });
  const ok = async (query: string) => {
    const res = await get(query);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.tokens).toBe(countRenderTokens(body.rendered));
    return body as {
      components: Component[];
      input_record_ids: string[];
      rendered: string;
      tokens: number;
      truncated: boolean;
    };
  };
  const component = (body: { components: Component[] }, name: string) =>
    body.components.find((c) => c.name === name) as Component;
  const write = async (records: object[]) => {
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().inserted.map((row: { id: string }) => row.id) as string[];
  };

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("context");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);
    facts.push(
      ...(await write([
        { collection: "customer_facts", entity: "c1", type: "fact", key: "plan", text: "Plan is pro" },
        {
          collection: "customer_facts",
          entity: "c1",
          type: "fact",
          key: "contact",
          text: "Email ann@example.com",
        },
      ])),
    );
    events.push(
      ...(await write(
        Array.from({ length: 60 }, (_, i) => ({
          collection: "customer_events",
          entity: "c1",
          type: "ticket",
          text: i === 59 ? "Latest: refund <b>&amp; card</b>" : `Ticket ${i} about the invoice`,
          occurred_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        })),
      )),
    );
    await write([
      { collection: "customer_events", entity: "quiet", type: "ticket", text: "Only events here" },
      { collection: "customer_events", entity: "quiet", type: "ticket", text: "A second event" },
    ]);
    await write(
      Array.from({ length: 60 }, (_, i) => ({
        collection: "customer_events",
        entity: "big",
        type: "ticket",
        text: `Long ticket ${i} ${"about the invoice and the card ".repeat(20)}`,
      })),
    );
    await enrichAll(t.db, workspaceId);
  });
  afterAll(() => t.close());

  it("gathers state, relevant and recent, each record once, in the first component that holds it", async () => {
    const body = await ok("entity=c1&task=plan%20pro&budget=16000");
    expect(body.components.map((c) => c.name)).toEqual(["state", "relevant", "recent"]);
    // state: current beliefs by collection and key.
    expect(component(body, "state").record_ids).toEqual([facts[1], facts[0]]);
    expect(component(body, "relevant").record_ids).not.toContain(facts[0]);
    expect(component(body, "relevant").record_ids.length).toBeGreaterThan(0);
    const recent = component(body, "recent").record_ids;
    for (const id of recent) expect(component(body, "relevant").record_ids).not.toContain(id);
    expect(new Set(body.input_record_ids).size).toBe(body.input_record_ids.length);
    expect(body.input_record_ids).toEqual(body.components.flatMap((c) => c.record_ids));
    expect(body.truncated).toBe(false);
    expect(body.rendered.split("\n")).toHaveLength(body.input_record_ids.length);
  });

  it("lists recent records newest first, without task no relevant component", async () => {
    const body = await ok("entity=c1&budget=16000");
    expect(body.components.map((c) => c.name)).toEqual(["state", "recent"]);
    // The newest 50 records of the entity (the beliefs, older, are in state anyway).
    expect(component(body, "recent").record_ids).toEqual([...events].reverse().slice(0, 50));
  });

  it("escapes rows like search rendering and is deterministic", async () => {
    const body = await ok("entity=c1&budget=16000");
    expect(body.rendered).toContain("Latest: refund &lt;b&gt;&amp;amp; card&lt;/b&gt;");
    expect(body.rendered).not.toContain("<b>");
    expect((await get("entity=c1&budget=16000")).body).toBe((await get("entity=c1&budget=16000")).body);
  });

  it("adds the consumer's records past its cursor without moving it", async () => {
    const body = await ok("entity=c1&consumer=agent&budget=16000");
    expect(body.components.map((c) => c.name)).toEqual(["state", "recent", "delta"]);
    // Everything since seq 0, less what state and recent already hold: the 10 oldest events.
    expect(component(body, "delta").record_ids).toEqual(events.slice(0, 10));
    const delta = await t.app.inject({
      method: "GET",
      url: "/delta?consumer=agent&entity=c1&limit=1",
      headers,
    });
    expect(delta.json().records[0].id).toBe(facts[0]);
    const last = (
      await t.app.inject({ method: "GET", url: "/delta?consumer=agent&entity=c1&limit=100", headers })
    ).json();
    const moved = await t.app.inject({
      method: "POST",
      url: "/cursor",
      headers,
      payload: { consumer: "agent", entity: "c1", position: last.next_cursor, scope_hash: last.scope_hash },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(component(await ok("entity=c1&consumer=agent"), "delta").record_ids).toEqual([]);
  });

  it("refuses a consumer last read with other filters: 409 cursor_scope", async () => {
    const other = (
      await t.app.inject({
        method: "GET",
        url: "/delta?consumer=picky&entity=c1&collection=customer_events",
        headers,
      })
    ).json();
    await t.app.inject({
      method: "POST",
      url: "/cursor",
      headers,
      payload: { consumer: "picky", entity: "c1", position: 1, scope_hash: other.scope_hash },
    });
    const res = await get("entity=c1&consumer=picky");
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe("cursor_scope");
  });

  it("stays within every budget and says when it left something out", async () => {
    for (const budget of [1, 10, 40, 100, 300, 1000]) {
      const body = await ok(`entity=c1&task=invoice&consumer=agent2&budget=${budget}`);
      expect(body.tokens).toBeLessThanOrEqual(budget);
      expect(body.truncated).toBe(true);
      expect(body.components.some((c) => c.truncated)).toBe(true);
    }
    expect((await ok("entity=c1&budget=300")).rendered).toContain("[truncated: ");
  });

  it("defaults the budget to 4000 tokens", async () => {
    const body = await ok("entity=big");
    expect(body.tokens).toBeLessThanOrEqual(4000);
    expect(body.truncated).toBe(true);
    expect(body).toEqual(await ok("entity=big&budget=4000"));
    expect((await ok("entity=big&budget=16000")).tokens).toBeGreaterThan(4000);
  });

  it("gives state at most 40% while others need theirs, and passes an unused share on", async () => {
    const small = await ok("entity=c1&task=invoice&budget=100");
    expect(component(small, "state").tokens).toBeLessThanOrEqual(40);
    expect(component(small, "state").truncated).toBe(true);
    const body = await ok("entity=c1&task=invoice&budget=1000");
    expect(component(body, "state").truncated).toBe(false);
    // State uses little of its 40%: relevant gets the rest on top of its own 35%.
    expect(component(body, "relevant").tokens).toBeGreaterThan(350);
    // No state and no task: recent may use the whole budget.
    const quiet = await ok("entity=quiet&budget=200");
    expect(component(quiet, "state").record_ids).toEqual([]);
    expect(component(quiet, "recent").record_ids).toHaveLength(2);
    const lone = await ok("entity=c1&budget=600");
    expect(component(lone, "recent").tokens).toBeGreaterThan(0.25 * 600);
  });

  it("wraps the rows in the fence and counts the fence against the budget", async () => {
    const body = await ok(
      "entity=c1&budget=500&fence_tag=memory&fence_preamble=Untrusted%20data%20%3Cbelow%3E",
    );
    expect(body.rendered.startsWith('Untrusted data &lt;below&gt;\n<memory untrusted="true">\n')).toBe(true);
    expect(body.rendered.endsWith("\n</memory>")).toBe(true);
    expect(body.tokens).toBeLessThanOrEqual(500);
    const tiny = await ok("entity=c1&budget=3&fence_tag=memory");
    expect(tiny).toMatchObject({ rendered: "", tokens: 0, truncated: true, input_record_ids: [] });
  });

  it("answers an entity with no records with empty components", async () => {
    const body = await ok("entity=nobody&fence_tag=memory");
    expect(body.rendered).toBe('<memory untrusted="true">\n</memory>');
    expect(body.truncated).toBe(false);
    expect(body.components.every((c) => c.record_ids.length === 0)).toBe(true);
  });

  it.each([
    ["no entity", "task=x", "entity"],
    ["a blank entity", "entity=%20", "entity"],
    ["a blank task", "entity=c1&task=%20", "task"],
    ["fence_preamble without fence_tag", "entity=c1&fence_preamble=hi", "fence_preamble"],
    ["an invalid fence_tag", "entity=c1&fence_tag=1bad", "fence_tag"],
    ["budget 0", "entity=c1&budget=0", "budget"],
    ["a budget over RENDER_BUDGET_TOKENS", "entity=c1&budget=16001", "budget"],
    ["an unknown parameter", "entity=c1&k=5", "k"],
  ])("refuses %s with 422 request_schema", async (_, query, path) => {
    const res = await get(query);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().code).toBe("request_schema");
    expect(JSON.stringify(res.json().errors)).toContain(path);
  });
});

describe("GET /context for an entity with more beliefs than DOCUMENT_MAX_RECORDS", () => {
  let t: TestApp;
  let headers: { authorization: string };

  beforeAll(async () => {
    t = await createTestApp({ env: { DOCUMENT_MAX_RECORDS: "5" } });
    ({ headers } = await t.workspace("context-wide"));
    await t.publishExample(headers);
    await t.writeRecords(
      headers,
      Array.from({ length: 12 }, (_, i) => ({
        collection: "customer_facts",
        entity: "wide",
        type: "fact",
        key: `k${String(i).padStart(2, "0")}`,
        text: `Belief ${i}`,
      })),
    );
    // A retraction among them: a retracted key is not a belief and takes no place.
    await t.writeRecords(headers, [
      { collection: "customer_facts", entity: "wide", type: "fact", key: "k00", text: "", tombstone: true },
    ]);
  });
  afterAll(() => t.close());

  it("the document refuses it, and context assembles the state within its share instead", async () => {
    const document = await t.app.inject({ url: "/document?entity=wide", headers });
    expect(document.statusCode, document.body).toBe(409);
    expect(document.json().code).toBe("document_too_large");

    const res = await t.app.inject({ url: "/context?entity=wide", headers });
    expect(res.statusCode, res.body).toBe(200);
    const state = res.json().components.find((c: { name: string }) => c.name === "state");
    // All eleven beliefs fit the default budget; the cut belief k00 is not among them.
    expect(state.record_ids).toHaveLength(11);
    expect(state.truncated).toBe(false);

    const small = (await t.app.inject({ url: "/context?entity=wide&budget=250", headers })).json();
    const cut = small.components.find((c: { name: string }) => c.name === "state");
    expect(cut.truncated).toBe(true);
    expect(cut.record_ids.length).toBeGreaterThan(0);
    expect(cut.record_ids.length).toBeLessThan(11);
    expect(small.tokens).toBeLessThanOrEqual(250);
  });
});
