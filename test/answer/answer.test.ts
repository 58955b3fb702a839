import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashJson } from "../../src/platform/hash.js";
import { citing, shownIds, stubCatalog, USAGE, userText } from "../support/answer-stub.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";
import {
  chatReply,
  errorReply,
  type OpenAIStub,
  type StubRequest,
  startOpenAIStub,
} from "../support/openai-stub.js";
import { enrichAll } from "../support/worker.js";

describe("POST /answer", () => {
  let stub: OpenAIStub;
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const ids: Record<string, string | undefined> = {};
  const ask = (payload: object, h = headers) =>
    t.app.inject({ method: "POST", url: "/answer", headers: h, payload });
  const chats = () => stub.requests.filter((r) => r.path === "/v1/chat/completions");
  const write = async (h: { authorization: string }, records: object[]) => {
    const res = await t.app.inject({ method: "POST", url: "/records", headers: h, payload: { records } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().inserted.map((row: { id: string }) => row.id) as string[];
  };
  const publish = async (h: { authorization: string }, payload: object) => {
    const res = await t.app.inject({ method: "POST", url: "/catalog", headers: h, payload });
    expect(res.statusCode, res.body).toBe(200);
  };
  const workspace = async (name: string, payload?: object) => {
    const ws = await t.workspace(name);
    if (payload) await publish(ws.headers, payload);
    return ws;
  };

  beforeAll(async () => {
    stub = await startOpenAIStub();
    t = await createTestApp({ env: { MAX_QUERY_CHARS: "300" } });
    const ws = await workspace("answers", await stubCatalog(stub.baseUrl));
    headers = ws.headers;
    workspaceId = ws.id;
    [ids.declined, ids.refund, ids.old] = await write(headers, [
      {
        collection: "customer_events",
        entity: "c1",
        type: "ticket",
        text: "Card declined at checkout <script>",
        occurred_at: "2026-03-01T10:00:00Z",
      },
      {
        collection: "customer_events",
        entity: "c1",
        type: "ticket",
        text: "Refund asked for the declined card",
        occurred_at: "2026-03-02T10:00:00Z",
      },
      {
        collection: "customer_events",
        entity: "c1",
        type: "ticket",
        text: "Card declined long ago",
        occurred_at: "2025-01-01T10:00:00Z",
      },
    ]);
    [ids.other] = await write(headers, [
      { collection: "customer_events", entity: "c2", type: "ticket", text: "Card declined for c2" },
    ]);
    [ids.ab, ids.bc] = await write(headers, [
      {
        collection: "edges",
        entity: "kb",
        type: "link",
        text: "billing explains refunds",
        content: { subject: "billing", object: "refunds", predicate: "explains" },
      },
      {
        collection: "edges",
        entity: "kb",
        type: "link",
        text: "refunds needs card",
        content: { subject: "refunds", object: "card", predicate: "needs" },
      },
    ]);
    await enrichAll(t.db, workspaceId);
  });
  afterAll(async () => {
    await t.close();
    await stub.close();
  });
  beforeEach(() => stub.reset());

  it("answers from the evidence, citations verified, usage as reported", async () => {
    stub.handle("chat", citing(2));
    const res = await ask({ question: "Why was the card declined?", entities: ["c1"] });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.answer).toBe("The card was declined.");
    expect(body.retrieval_query).toBe("Why was the card declined?");
    expect(body.citations).toHaveLength(2);
    for (const id of body.citations) expect(body.input_ids).toContain(id);
    expect(new Set(body.input_ids)).toEqual(new Set([ids.declined, ids.refund, ids.old]));
    expect(body.gaps).toEqual([]);
    expect(body.model_usage).toEqual({ prompt_tokens: 50, completion_tokens: 9, calls: 1, estimated: false });
    expect(body.saved_id).toBeNull();
    const [sent] = chats();
    expect(sent?.body.model).toBe("gpt-test");
    expect(sent?.body.response_format.json_schema.schema.required).toEqual(["answer", "citations", "gaps"]);
    // The evidence is fenced as untrusted and escaped like rendered search rows.
    expect(userText(sent as StubRequest)).toContain('<evidence untrusted="true">');
    expect(userText(sent as StubRequest)).toContain("Card declined at checkout &lt;script&gt;");
    expect(userText(sent as StubRequest)).not.toContain("<script>");
  });

  it("accepts a citation written with its brackets or in capitals, and counts it once", async () => {
    stub.handle("chat", (request) => {
      const id = shownIds(request)[0] as string;
      return chatReply(
        JSON.stringify({ answer: "a", citations: [`[${id}]`, id.toUpperCase()], gaps: ["x"] }),
        USAGE,
      );
    });
    const res = await ask({ question: "card declined", entities: ["c1"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().citations).toHaveLength(1);
    expect(res.json().gaps).toEqual(["x"]);
  });

  it("refuses an answer citing an id it was not shown: 502 answer_citation", async () => {
    stub.handle("chat", () =>
      chatReply(JSON.stringify({ answer: "a", citations: [ids.other], gaps: [] }), USAGE),
    );
    const res = await ask({ question: "card declined", entities: ["c1"] });
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe("answer_citation");
    expect(chats()).toHaveLength(1);
  });

  it("asks again once after a malformed reply", async () => {
    stub.enqueue("chat", chatReply("not json at all", USAGE));
    stub.handle("chat", citing(1));
    const res = await ask({ question: "card declined", entities: ["c1"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().model_usage.calls).toBe(2);
    expect(chats()).toHaveLength(2);
  });

  it("gives 502 answer_model after two malformed or schema-invalid replies", async () => {
    stub.enqueue("chat", chatReply("{oops", USAGE), chatReply(JSON.stringify({ answer: 1 }), USAGE));
    const res = await ask({ question: "card declined", entities: ["c1"] });
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe("answer_model");
    expect(chats()).toHaveLength(2);
  });

  it("gives 503 answer_model_unavailable when the provider fails", async () => {
    stub.handle("chat", () => errorReply(500));
    const res = await ask({ question: "card declined", entities: ["c1"] });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe("answer_model_unavailable");
  });

  it("waits for a slow model within the budget", async () => {
    stub.handle("chat", (request) => ({ ...citing(1)(request), delayMs: 300 }));
    const res = await ask({ question: "card declined", entities: ["c1"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().citations).toHaveLength(1);
  });

  it("marks usage estimated when the provider reports none", async () => {
    stub.handle("chat", citing(1, {} as typeof USAGE));
    const res = await ask({ question: "card declined", entities: ["c1"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().model_usage.estimated).toBe(true);
    expect(res.json().model_usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("with rewrite, searches with the model's query first (2 calls)", async () => {
    stub.enqueue("chat", chatReply(JSON.stringify({ query: "refund declined card" }), USAGE));
    stub.handle("chat", citing(1));
    const res = await ask({ question: "what did c1 ask for?", entities: ["c1"], rewrite: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().retrieval_query).toBe("refund declined card");
    expect(res.json().model_usage).toMatchObject({ calls: 2, prompt_tokens: 100, completion_tokens: 18 });
    expect(userText(chats()[0] as StubRequest)).toBe("what did c1 ask for?");
  });

  it("with rewrite, a blank query is asked again, then 502 answer_model", async () => {
    stub.handle("chat", () => chatReply(JSON.stringify({ query: "  " }), USAGE));
    const res = await ask({ question: "what?", entities: ["c1"], rewrite: true });
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe("answer_model");
    expect(chats()).toHaveLength(2);
  });

  it("calls no model when nothing is found, and says so", async () => {
    const res = await ask({ question: "card declined", entities: ["nobody"] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      answer: "Memory holds nothing on this question.",
      citations: [],
      gaps: ["card declined"],
      input_ids: [],
      model_usage: { calls: 0, prompt_tokens: 0, completion_tokens: 0, estimated: false },
      saved_id: null,
    });
    expect(chats()).toHaveLength(0);
  });

  it("keeps to the window: since and until bound occurred_at", async () => {
    stub.handle("chat", citing(1));
    const res = await ask({
      question: "card declined",
      entities: ["c1"],
      since: "2026-01-01T00:00:00Z",
      until: "2026-03-01T12:00:00+00:00",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().input_ids).toEqual([ids.declined]);
  });

  it("adds the links within two steps of the anchor to the evidence", async () => {
    stub.handle("chat", citing(1));
    const res = await ask({ question: "card declined", entities: ["c1"], anchor: "billing" });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().input_ids).toEqual(expect.arrayContaining([ids.ab, ids.bc]));
    const named = await ask({
      question: "card declined",
      entities: ["c1"],
      anchor: "card",
      graph: "topic_graph",
    });
    expect(named.json().input_ids).toEqual(expect.arrayContaining([ids.ab, ids.bc]));
    const unknown = await ask({ question: "card declined", anchor: "card", graph: "orphan_pages" });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().code).toBe("request_schema");
  });

  it("saves a synthesis citing the same records; asking again supersedes it", async () => {
    stub.handle("chat", citing(2));
    const question = { question: "Why was the card declined?", entities: ["c1"], save: true };
    const first = await ask(question);
    expect(first.statusCode, first.body).toBe(200);
    const saved = first.json().saved_id;
    const record = (await t.app.inject({ method: "GET", url: `/records/${saved}`, headers })).json();
    expect(record).toMatchObject({
      collection: "syntheses",
      entity: "answer",
      type: "synthesis",
      key: `answer:${hashJson({ question: question.question, since: null, until: null })}`,
      text: "The card was declined.",
    });
    expect([...record.citations].sort()).toEqual([...first.json().citations].sort());
    expect([...record.derived_from].sort()).toEqual([...first.json().citations].sort());
    const second = await ask(question);
    expect(second.json().saved_id).not.toBe(saved);
    const doc = (await t.app.inject({ method: "GET", url: "/document?entity=answer", headers })).json();
    expect(doc.beliefs.map((b: { id: string }) => b.id)).toEqual([second.json().saved_id]);
  });

  it.each([
    ["a blank question", { question: "  " }, "question"],
    ["no question", {}, "question"],
    ["an unknown field", { question: "q", k: 5 }, "k"],
    ["101 entities", { question: "q", entities: Array.from({ length: 101 }, (_, i) => `e${i}`) }, "entities"],
    ["a 129-character entity", { question: "q", entities: ["e".repeat(129)] }, "entities.0"],
    ["a 129-character anchor", { question: "q", anchor: "a".repeat(129) }, "anchor"],
    ["graph without anchor", { question: "q", graph: "topic_graph" }, "graph"],
    [
      "since after until",
      { question: "q", since: "2026-02-01T00:00:00Z", until: "2026-01-01T00:00:00Z" },
      "since",
    ],
    ["since without a timezone", { question: "q", since: "2026-02-01T00:00:00" }, "since"],
    ["rewrite not a boolean", { question: "q", rewrite: "yes" }, "rewrite"],
  ])("refuses %s with 422 request_schema and calls no model", async (_, payload, path) => {
    const res = await ask(payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().code).toBe("request_schema");
    expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(chats()).toHaveLength(0);
  });

  it("refuses a question over MAX_QUERY_CHARS with 422 answer_question_too_large", async () => {
    const res = await ask({ question: "q".repeat(301) });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("answer_question_too_large");
    expect((await ask({ question: "q".repeat(300), entities: ["nobody"] })).statusCode).toBe(200);
  });

  it("refuses with 422 answer_unavailable when no collection is answerable", async () => {
    const ws = await workspace(
      "no-answerable",
      await stubCatalog(stub.baseUrl, (files) => {
        files["collections/support.yaml"] = (files["collections/support.yaml"] as string).replaceAll(
          "answerable: true",
          "answerable: false",
        );
        // The example's MCP answer tool needs an answerable collection: left out with it.
        delete files["mcp/support.yaml"];
        files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
          "mcp: support_tools@1\n",
          "",
        );
      }),
    );
    const res = await ask({ question: "q" }, ws.headers);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("answer_unavailable");
  });

  it("answers across answerable collections on different search profiles, one search per profile fused", async () => {
    const ws = await workspace(
      "two-profiles",
      await stubCatalog(stub.baseUrl, (files) => {
        files["search_profiles/support.yaml"] += `  - name: words
    description: Facts, searchable by words and by embedding.
    engine: postgres
    embedding: embed
    text_config: simple
`;
        // Knowledge pages become answerable on a profile of their own.
        const collections = files["collections/support.yaml"] as string;
        const pages = collections.indexOf("  - name: pages");
        files["collections/support.yaml"] =
          collections.slice(0, pages) +
          collections
            .slice(pages)
            .replace("search_profile: support", "search_profile: words\n    answerable: true");
        files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
          "search_profiles: [support]",
          "search_profiles: [support, words]",
        );
      }),
    );
    const [event, page] = await write(ws.headers, [
      { collection: "customer_events", entity: "p1", type: "ticket", text: "Card declined at checkout" },
      { collection: "pages", entity: "p1", type: "page", key: "cards", text: "When a card is declined" },
    ]);
    await enrichAll(t.db, ws.id);
    stub.handle("chat", citing(2));
    const res = await ask({ question: "card declined", entities: ["p1"] }, ws.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(new Set(res.json().input_ids)).toEqual(new Set([event, page]));
    expect(new Set(res.json().citations)).toEqual(new Set([event, page]));
  });

  it("refuses with 422 graph_ambiguous when several graph views are active and none is named", async () => {
    const ws = await workspace(
      "two-graphs",
      await stubCatalog(stub.baseUrl, (files) => {
        const views = files["views/support.yaml"] as string;
        const graph = views.slice(
          views.indexOf("  - name: topic_graph"),
          views.indexOf("  - name: orphan_pages"),
        );
        files["views/support.yaml"] = `${views}\n${graph.replace("topic_graph", "second_graph")}`;
        files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
          "topic_graph@1",
          "topic_graph@1\n  - second_graph@1",
        );
      }),
    );
    const ambiguous = await ask({ question: "q", anchor: "billing" }, ws.headers);
    expect(ambiguous.statusCode, ambiguous.body).toBe(422);
    expect(ambiguous.json().code).toBe("graph_ambiguous");
    const named = await ask({ question: "q", anchor: "billing", graph: "second_graph" }, ws.headers);
    expect(named.statusCode, named.body).toBe(200);
  });

  it("refuses save without a syntheses collection (422, no model call)", async () => {
    const ws = await workspace(
      "no-syntheses",
      await stubCatalog(stub.baseUrl, (files) => {
        const collections = files["collections/support.yaml"] as string;
        const start = collections.indexOf("  - name: syntheses");
        const end = collections.indexOf("  - name: learning_signals");
        files["collections/support.yaml"] = collections.slice(0, start) + collections.slice(end);
        files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
          "  - syntheses@1\n",
          "",
        );
        files["processors/enrichment.yaml"] = (files["processors/enrichment.yaml"] as string).replace(
          "pages, syntheses]",
          "pages]",
        );
      }),
    );
    const res = await ask({ question: "q", save: true }, ws.headers);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].path).toBe("save");
    expect(chats()).toHaveLength(0);
  });

  it("uses defaults.derivation when conf/models.yaml names no defaults.answer", async () => {
    const ws = await workspace(
      "derivation-default",
      await stubCatalog(stub.baseUrl, (files) => {
        files["conf/models.yaml"] = (files["conf/models.yaml"] as string)
          .replace("  answer: answerer\n", "")
          .replace("derivation: chat", "derivation: answerer");
      }),
    );
    await write(ws.headers, [
      { collection: "customer_events", entity: "d1", type: "ticket", text: "Card declined" },
    ]);
    await enrichAll(t.db, ws.id);
    stub.handle("chat", citing(1));
    const res = await ask({ question: "card declined" }, ws.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(chats()).toHaveLength(1);
    expect(res.json().citations).toHaveLength(1);
  });

  it("fails with 502 answer_model under the fake provider", async () => {
    const ws = await workspace("fake", await exampleRequest());
    const res = await ask({ question: "card declined" }, ws.headers);
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe("answer_model");
  });

  it("is another workspace's: no key, 401", async () => {
    const res = await t.app.inject({ method: "POST", url: "/answer", payload: { question: "q" } });
    expect(res.statusCode).toBe(401);
  });
});
