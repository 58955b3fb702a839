// explain: true (the console's recall debugger): every hit says why it ranks where it does: the
// signals, the rank expression with each node's value (its root the hit's rank_score), the
// candidate lists that proposed it, source_ranks with sources, order_by values in structured
// mode. Off by default: without it a response is what it always was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";
import { enrichAll } from "../support/worker.js";

const Q = "card declined refund";

interface RankTree {
  op?: string;
  signal?: string;
  value: number;
  args?: RankTree[];
  [more: string]: unknown;
}

interface Explained {
  signals: {
    similarity: number | null;
    text_match: number | null;
    age_hours: Record<string, number>;
    scores: Record<string, number>;
  };
  rank?: RankTree;
  order_by?: { field: string; direction: string; value: unknown }[];
  proposed_by: string[];
  source_ranks?: Record<string, number>;
}

interface Hit {
  id: string;
  rank: number;
  score: number | null;
  rank_score?: number;
  source_ranks?: Record<string, number>;
  explain?: Explained;
}

/** Every node of a tree, depth first. */
function nodes(tree: RankTree): RankTree[] {
  return [tree, ...(tree.args ?? []).flatMap(nodes)];
}

describe("explain", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const post = (url: string, body: object) => t.app.inject({ method: "POST", url, headers, payload: body });
  const ok = async (body: object): Promise<{ hits: Hit[] } & Record<string, unknown>> => {
    const res = await post("/search", body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const events = { collections: ["customer_events"] };

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("explain");
    headers = ws.headers;
    // Without the package's conf/rank.yaml: hybrid ranks by the default formula explained here.
    const { files, ...request } = await exampleRequest();
    const { "conf/rank.yaml": _shipped, ...defaults } = files;
    const published = await post("/catalog", { ...request, files: defaults });
    expect(published.statusCode, published.body).toBe(200);
    const event = (text: string, priority: number, day: number) => ({
      collection: "customer_events",
      entity: "acme",
      type: "ticket",
      text,
      content: { channel: "email", priority },
      occurred_at: `2026-01-0${day}T10:00:00Z`,
    });
    await t.writeRecords(headers, [
      event("Card declined at checkout", 5, 1),
      event("Refund requested for a duplicate charge", 3, 2),
      event("Cannot login to the dashboard", 1, 3),
      event("Card declined again, customer wants a refund", 4, 4),
      event("Asked about the enterprise plan", 2, 5),
    ]);
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  it("explains every hybrid hit: signals, the default formula's values, the lists that proposed it", async () => {
    const body = await ok({ mode: "hybrid", q: Q, k: 10, scope: events, explain: true });
    expect(body.hits.length).toBe(5);
    // The text list holds exactly the records the text mode finds (the pool covers every list).
    const text = await ok({ mode: "text", q: Q, k: 10, scope: events });
    const matched = new Set(text.hits.map((h) => h.id));
    expect(matched.size).toBeGreaterThan(0);
    for (const hit of body.hits) {
      const explain = hit.explain as Explained;
      expect(explain.rank?.value).toBe(hit.rank_score);
      expect(explain.proposed_by).toEqual(["vector", ...(matched.has(hit.id) ? ["text"] : []), "recent"]);
      // hybrid's default: normalize(max(similarity, text_match)) + decay(age of last_accessed)
      expect(explain.rank).toMatchObject({
        op: "sum",
        args: [
          {
            op: "normalize",
            args: [{ op: "max", args: [{ signal: "similarity" }, { signal: "text_match" }] }],
          },
          { op: "decay", midpoint: 24, exponent: 1, args: [{ signal: "age_hours", field: "last_accessed" }] },
        ],
      });
      const leaves = nodes(explain.rank as RankTree);
      const leaf = (signal: string) => leaves.find((n) => n.signal === signal)?.value;
      expect(leaf("similarity")).toBe(explain.signals.similarity);
      expect(leaf("text_match")).toBe(explain.signals.text_match ?? 0);
      expect(leaf("age_hours")).toBe(explain.signals.age_hours.last_accessed);
      expect(matched.has(hit.id)).toBe((explain.signals.text_match ?? 0) > 0);
      const [sum, max] = [explain.rank as RankTree, leaves.find((n) => n.op === "max") as RankTree];
      expect(max.value).toBe(Math.max(...(max.args ?? []).map((a) => a.value)));
      expect(sum.value).toBeCloseTo(
        (sum.args ?? []).reduce((s, a) => s + a.value, 0),
        12,
      );
      expect(Object.keys(explain.signals.age_hours)).toEqual(["created_at", "occurred_at", "last_accessed"]);
      expect(explain.signals.scores).toHaveProperty("urgency");
      expect(explain.signals.age_hours.occurred_at).toBeGreaterThan(0);
    }
  });

  it("is off by default: no explain member, and the same response as before", async () => {
    // A rank without ages: two searches a moment apart rank alike (every search marks last_accessed).
    const spec = {
      mode: "hybrid",
      q: Q,
      k: 10,
      scope: events,
      rank: ["max", [["similarity"], ["text_match"]]],
    };
    const first = await post("/search", spec);
    const second = await post("/search", spec);
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    const plain = first.json();
    for (const hit of plain.hits) expect(hit).not.toHaveProperty("explain");
    expect((await post("/search", { ...spec, explain: false })).body).toBe(first.body);
    // With explain, the same response plus explain on each hit.
    const explained = await ok({ ...spec, explain: true });
    const stripped = { ...explained, hits: explained.hits.map(({ explain: _explain, ...hit }) => hit) };
    expect(JSON.stringify(stripped)).toBe(first.body);
    for (const hit of explained.hits) expect(hit.explain?.rank?.value).toBe(hit.rank_score);
  });

  it("explains a text search with a custom rank, and a recent one", async () => {
    const rank = [
      "sum",
      [
        ["product", 0.7, ["text_match"]],
        ["product", 0.3, ["score", "urgency"]],
        ["const", 0.1],
      ],
    ];
    const body = await ok({ mode: "text", q: Q, k: 10, scope: events, rank, explain: true });
    for (const hit of body.hits) {
      const explain = hit.explain as Explained;
      expect(explain.proposed_by).toEqual(["text"]);
      expect(explain.signals.similarity).toBeNull();
      const [text, urgency, constant] = explain.rank?.args ?? [];
      expect(text?.args?.[0]).toEqual({ signal: "text_match", value: explain.signals.text_match });
      expect(urgency?.args?.[0]).toEqual({
        signal: "score",
        name: "urgency",
        value: explain.signals.scores.urgency,
      });
      expect(constant).toEqual({ const: 0.1, value: 0.1 });
      expect(explain.rank?.value).toBe(hit.rank_score);
      expect(explain.rank?.value).toBeCloseTo(
        0.7 * (explain.signals.text_match as number) + 0.3 * (explain.signals.scores.urgency as number) + 0.1,
        12,
      );
    }
    const recent = await ok({ mode: "recent", k: 3, scope: events, explain: true });
    for (const hit of recent.hits) {
      expect(hit.explain?.proposed_by).toEqual(["recent"]);
      expect(hit.explain?.rank?.value).toBe(hit.rank_score);
    }
  });

  it("gives source_ranks and each source's own rank under the rrf node with sources", async () => {
    const body = await ok({
      q: Q,
      k: 10,
      sources: [
        { name: "sem", mode: "vector", scope: events, k: 3 },
        { name: "kw", mode: "text", scope: events, k: 3, weight: 2 },
      ],
      fuse: { kind: "rrf", rank_constant: 60 },
      boost: [
        "sum",
        [
          ["const", 1],
          ["score", "urgency"],
        ],
      ],
      explain: true,
    });
    expect(body.hits.length).toBeGreaterThan(0);
    for (const hit of body.hits) {
      const explain = hit.explain as Explained;
      expect(explain.source_ranks).toEqual(hit.source_ranks);
      const rank = explain.rank as RankTree;
      expect(rank.op).toBe("boost");
      expect(rank.value).toBe(hit.rank_score);
      const [rrf, boost] = rank.args as RankTree[];
      expect(boost?.value).toBeCloseTo(1 + (explain.signals.scores.urgency as number), 12);
      expect(rank.value).toBeCloseTo((rrf?.value as number) * (boost?.value as number), 12);
      expect(rrf).toMatchObject({ op: "rrf", rank_constant: 60 });
      const args = rrf?.args as RankTree[];
      expect(args.map((a) => a.source)).toEqual(Object.keys(hit.source_ranks ?? {}));
      for (const arg of args) {
        const weight = arg.source === "kw" ? 2 : 1;
        expect(arg).toMatchObject({ source_rank: hit.source_ranks?.[arg.source as string], weight });
        expect(arg.value).toBe(weight / (60 + (arg.source_rank as number)));
        // the source's own expression: its root is the record's rank_score in that source
        expect((arg.rank as RankTree).op).toBe("sum");
      }
      expect(rrf?.value).toBeCloseTo(
        args.reduce((s, a) => s + a.value, 0),
        15,
      );
      const lists = [...(hit.source_ranks?.sem ? ["vector"] : []), ...(hit.source_ranks?.kw ? ["text"] : [])];
      expect(explain.proposed_by).toEqual(lists);
    }
  });

  it("holds the order_by values in structured mode", async () => {
    const body = await ok({
      mode: "structured",
      k: 3,
      scope: events,
      order_by: [{ field: "priority", direction: "desc" }],
      explain: true,
    });
    expect(body.hits.map((h) => h.explain?.order_by?.[0]?.value)).toEqual([5, 4, 3]);
    for (const hit of body.hits) {
      expect(hit.score).toBeNull();
      expect(hit.explain).toMatchObject({
        order_by: [{ field: "priority", direction: "desc" }],
        proposed_by: ["structured"],
      });
      expect(hit.explain).not.toHaveProperty("rank");
    }
  });

  it("explains the boosts above the expression: graph_boost and rerank", async () => {
    const body = await ok({
      mode: "text",
      q: Q,
      k: 5,
      scope: events,
      rank: ["text_match"],
      graph_boost: { anchor: "acme", depth: 1, weight: 2, graph: "topic_graph" },
      rerank: { model: "chat", top_n: 2 },
      explain: true,
    });
    body.hits.forEach((hit, i) => {
      const rank = hit.explain?.rank as RankTree;
      expect(rank).toMatchObject({ op: "rerank", model: "chat", judged: i < 2, value: hit.rank_score });
      // every record is acme's: the anchor itself, distance 0, so value + |value| * 2 / 1
      const boosted = rank.args?.[0] as RankTree;
      expect(boosted).toMatchObject({ op: "graph_boost", weight: 2, distance: 0 });
      const text = boosted.args?.[0] as RankTree;
      expect(text).toEqual({ signal: "text_match", value: hit.explain?.signals.text_match });
      expect(boosted.value).toBeCloseTo(3 * text.value, 12);
    });
  });

  it("takes ?explain=true on a view call", async () => {
    const url = "/views/customer_history/query";
    const args = { customer: "acme", question: Q };
    const plain = await post(url, args);
    expect(plain.statusCode, plain.body).toBe(200);
    for (const hit of plain.json().hits) expect(hit).not.toHaveProperty("explain");
    const res = await post(`${url}?explain=true`, args);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.view.name).toBe("customer_history");
    expect(body.hits.length).toBeGreaterThan(0);
    for (const hit of body.hits as Hit[]) {
      expect(hit.explain?.rank?.value).toBe(hit.rank_score);
      expect(hit.explain?.proposed_by).toContain("recent");
    }
    const structured = await post("/views/urgent_events/query?explain=true", { customer: "acme" });
    expect(structured.statusCode, structured.body).toBe(200);
    expect(structured.json().hits[0].explain.order_by).toEqual([
      { field: "priority", direction: "desc", value: 5 },
    ]);
    const refused = await post(`${url}?explain=yes`, args);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors.map((e: { path: string }) => e.path)).toEqual(["querystring.explain"]);
    const graph = await post("/views/topic_graph/query?explain=true", { seed: "acme" });
    expect(graph.statusCode).toBe(422);
    expect(graph.json().errors.map((e: { path: string }) => e.path)).toEqual(["querystring.explain"]);
  });

  it("refuses a non-boolean explain (422), and explain inside a source", async () => {
    const res = await post("/search", { mode: "hybrid", q: Q, explain: "yes" });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: "request_schema" });
    expect(res.json().errors.map((e: { path: string }) => e.path)).toEqual(["explain"]);
    const inSource = await post("/search", {
      q: Q,
      sources: [{ name: "a", mode: "text", scope: events, explain: true }],
      fuse: { kind: "rrf" },
    });
    expect(inSource.statusCode).toBe(422);
    expect(inSource.json().errors.map((e: { path: string }) => e.path)).toContain("sources.0.explain");
  });

  it("refuses a view definition that fixes explain", async () => {
    const request = await exampleRequest();
    const files = { ...request.files };
    files["views/support.yaml"] = (files["views/support.yaml"] as string).replace(
      "    query:\n      mode: hybrid\n",
      "    query:\n      mode: hybrid\n      explain: true\n",
    );
    expect(files["views/support.yaml"]).toContain("explain: true");
    const ws = await t.workspace("explain-view");
    const res = await t.publish(ws.headers, { ...request, files });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain("views/support.yaml");
    expect(res.body).toContain("a view does not fix explain");
  });
});
