// rerank and graph_boost: re-judging the top results through a model alias, boosting records
// near an anchor node, and views that use both without forwarding their diagnostics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeRelevance } from "../../src/models/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";
import { refusedBaseUrl } from "../support/openai-stub.js";
import { enrichAll } from "../support/worker.js";

const Q = "invoice overdue";
const JUDGED_VIEW = `
  - name: judged_invoices
    version: 1
    active: true
    description: Invoice events, re-judged and boosted near an anchor.
    parameters:
      question: { type: string, required: true, description: What to look for. }
      anchor: { type: string, required: true, description: The node to boost around. }
    query:
      mode: text
      q: "{{question}}"
      k: 10
      scope: { collections: [customer_events] }
      rank: [text_match]
      rerank: { model: chat, top_n: 2 }
      graph_boost: { anchor: "{{anchor}}", depth: 1 }
`;

/** The example package plus an unreachable judge alias and a view using rerank and graph_boost. */
async function catalogWithJudges(downUrl: string) {
  const request = await exampleRequest();
  const files = { ...request.files };
  files["conf/models.yaml"] = (files["conf/models.yaml"] as string)
    .replace("providers:\n", `providers:\n  down:\n    adapter: openai\n    base_url: ${downUrl}\n`)
    .replace("aliases:\n", 'aliases:\n  judge_down:\n    targets: ["down:judge"]\n');
  files["views/support.yaml"] = `${files["views/support.yaml"]}${JUDGED_VIEW}`;
  files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
    "views:\n",
    "views:\n  - judged_invoices@1\n",
  );
  return { ...request, files };
}

interface Hit {
  id: string;
  rank_score: number;
  score: number;
  entity: string;
  text: string;
}

describe("rerank and graph_boost", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const search = (body: object) => t.app.inject({ method: "POST", url: "/search", headers, payload: body });
  const ok = async (body: object) => {
    const res = await search(body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  // text_match only: rank_score does not move with last_accessed between two searches.
  const base = { mode: "text", q: Q, k: 10, rank: ["text_match"], include: ["entity", "text"] };

  beforeAll(async () => {
    const down = await refusedBaseUrl();
    t = await createTestApp({ env: { MODEL_ENDPOINTS: down } });
    const ws = await t.workspace("boosts");
    headers = ws.headers;
    const published = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: await catalogWithJudges(down),
    });
    expect(published.statusCode, published.body).toBe(200);
    const event = (entity: string, text: string) => ({
      collection: "customer_events",
      entity,
      type: "ticket",
      text,
    });
    const edge = (subject: string, object: string) => ({
      collection: "edges",
      entity: subject,
      type: "link",
      content: { subject, object, predicate: "partner" },
    });
    const records = [
      // Many "overdue"s in a short text: the highest text_match but only half of the query's
      // words (the others hold both, in long texts, which BM25 weighs less per word).
      event("globex", "overdue overdue overdue overdue overdue overdue overdue overdue overdue overdue"),
      event(
        "acme",
        "invoice overdue reminder from billing about the march account statement totals fees and late charges",
      ),
      event(
        "initech",
        "second invoice overdue notice sent by the accounting office to the finance team lead for approval today",
      ),
      event(
        "umbrella",
        "overdue invoice question raised during the quarterly review call with their procurement staff and auditors",
      ),
      event("hooli", "invoice sent"),
      edge("acme", "globex"),
      edge("globex", "initech"),
    ];
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records } });
    expect(res.statusCode, res.body).toBe(200);
    await enrichAll(t.db, ws.id);
  });
  afterAll(() => t.close());

  describe("graph_boost", () => {
    it("raises records near the anchor by weight / (1 + distance), scores measured after the boost", async () => {
      const plain = await ok(base);
      const before = new Map<string, Hit>(plain.hits.map((h: Hit) => [h.entity, h]));
      const body = await ok({ ...base, graph_boost: { anchor: "acme", depth: 1, weight: 2 } });
      expect(body.graph_boost).toEqual({
        anchor: "acme",
        depth: 1,
        weight: 2,
        matched_records: 2,
        edge_count: 1,
      });
      const after = new Map<string, Hit>(body.hits.map((h: Hit) => [h.entity, h]));
      const factor: Record<string, number> = { acme: 1 + 2 / 1, globex: 1 + 2 / 2 };
      for (const [entity, hit] of after) {
        const expected = (before.get(entity)?.rank_score as number) * (factor[entity] ?? 1);
        expect(hit.rank_score).toBeCloseTo(expected, 12);
      }
      const scores = body.hits.map((h: Hit) => h.rank_score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(body.hits[0].score).toBe(1);
      expect(body.ranking.kind).toBe("rank_expression");
    });

    it("reaches further with depth and names the graph view when asked", async () => {
      const body = await ok({
        ...base,
        graph_boost: { anchor: "acme", depth: 2, graph: "topic_graph" },
      });
      expect(body.graph_boost).toMatchObject({ depth: 2, weight: 1, matched_records: 3, edge_count: 2 });
    });

    it("an anchor outside the graph boosts nothing", async () => {
      const plain = await ok(base);
      const body = await ok({ ...base, graph_boost: { anchor: "nobody" } });
      expect(body.graph_boost).toMatchObject({ matched_records: 0, edge_count: 0 });
      expect(body.hits.map((h: Hit) => h.rank_score)).toEqual(plain.hits.map((h: Hit) => h.rank_score));
    });

    it("is refused in structured mode, with an unknown graph, and is absent when not asked", async () => {
      for (const body of [
        {
          mode: "structured",
          scope: { collections: ["customer_events"] },
          order_by: [{ field: "priority" }],
          graph_boost: { anchor: "acme" },
        },
        { ...base, graph_boost: { anchor: "acme", graph: "no_such_graph" } },
        { ...base, graph_boost: { anchor: "acme", depth: 17 } },
        { ...base, graph_boost: { depth: 1 } },
      ]) {
        const res = await search(body);
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().code).toBe("request_schema");
      }
      const plain = await ok(base);
      expect(plain).not.toHaveProperty("graph_boost");
      expect(plain).not.toHaveProperty("rerank");
    });
  });

  describe("rerank", () => {
    it("re-orders the top_n by the judge's relevance; the rest follow with rank_score 0", async () => {
      const plain = await ok(base);
      const body = await ok({ ...base, rerank: { model: "chat", top_n: 2 } });
      expect(body.ranking).toMatchObject({ kind: "llm_judge", scored: true, normalization: "min_max" });
      expect(body.rerank).toEqual({ backend: "local:fake-chat", top_n: 2, model: "chat", judged_records: 2 });
      const judged = plain.hits
        .slice(0, 2)
        .map((h: Hit) => ({ id: h.id, relevance: fakeRelevance(Q, h.text) }))
        .sort((a: { relevance: number }, b: { relevance: number }) => b.relevance - a.relevance);
      // The data makes the judge disagree with text_match: the order really changes.
      expect(judged.map((j: { id: string }) => j.id)).not.toEqual(
        plain.hits.slice(0, 2).map((h: Hit) => h.id),
      );
      expect(body.hits.slice(0, 2).map((h: Hit) => [h.id, h.rank_score])).toEqual(
        judged.map((j: { id: string; relevance: number }) => [j.id, j.relevance]),
      );
      expect(body.hits.slice(2).map((h: Hit) => h.id)).toEqual(plain.hits.slice(2).map((h: Hit) => h.id));
      for (const hit of body.hits.slice(2)) expect(hit.rank_score).toBe(0);
      expect(body.hits[0].score).toBe(1);
    });

    it("judges k results by default and runs after graph_boost", async () => {
      const body = await ok({ ...base, k: 3, rerank: { model: "chat" }, graph_boost: { anchor: "acme" } });
      expect(body.rerank).toMatchObject({ top_n: 3, judged_records: 3 });
      expect(body.graph_boost).toMatchObject({ matched_records: 2 });
      for (const hit of body.hits) expect(hit.rank_score).toBe(fakeRelevance(Q, hit.text));
    });

    it("judges top_n records beyond k: their texts are read though only k are shown", async () => {
      const plain = await ok({ ...base, k: 4 });
      const best = plain.hits
        .map((h: Hit) => ({ id: h.id, relevance: fakeRelevance(Q, h.text) }))
        .sort((a: { relevance: number }, b: { relevance: number }) => b.relevance - a.relevance)[0];
      // The judge's best is not the first by text_match: the judged window really spans past k.
      expect(best.id).not.toBe(plain.hits[0].id);
      const body = await ok({ ...base, k: 1, rerank: { model: "chat", top_n: 4 } });
      expect(body.rerank).toMatchObject({ top_n: 4, judged_records: 4 });
      expect(body.hits.map((h: Hit) => [h.id, h.rank_score, h.text])).toEqual([
        [best.id, best.relevance, plain.hits.find((h: Hit) => h.id === best.id).text],
      ]);
    });

    it("answers 503 rerank_unavailable when the judge cannot be reached", async () => {
      const res = await search({ ...base, rerank: { model: "judge_down" } });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().code).toBe("rerank_unavailable");
    });

    it("refuses an unknown alias, an embedding alias, top_n out of range, no q, and structured mode", async () => {
      for (const body of [
        { ...base, rerank: { model: "nope" } },
        { ...base, rerank: { model: "embed" } },
        { ...base, rerank: { model: "chat", top_n: 0 } },
        { ...base, rerank: { model: "chat", top_n: 101 } },
        { ...base, rerank: { top_n: 5 } },
        { mode: "recent", rerank: { model: "chat" } },
        {
          mode: "structured",
          scope: { collections: ["customer_events"] },
          order_by: [{ field: "priority" }],
          rerank: { model: "chat" },
        },
      ]) {
        const res = await search(body);
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().code).toBe("request_schema");
      }
    });
  });

  it("a view using both orders by them but forwards neither diagnostic", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/views/judged_invoices/query",
      headers,
      payload: { question: Q, anchor: "acme" },
    });
    expect(res.statusCode, res.body).toBe(200);
    const view = res.json();
    expect(view).not.toHaveProperty("rerank");
    expect(view).not.toHaveProperty("graph_boost");
    expect(view.ranking.kind).toBe("llm_judge");
    const direct = await ok({
      mode: "text",
      q: Q,
      k: 10,
      scope: { collections: ["customer_events"] },
      rank: ["text_match"],
      rerank: { model: "chat", top_n: 2 },
      graph_boost: { anchor: "acme", depth: 1 },
    });
    expect(view.input_record_ids).toEqual(direct.hits.map((h: Hit) => h.id));
  });
});
