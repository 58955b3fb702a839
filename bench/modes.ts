// The search requests measured, one generator per mode. Questions draw from the corpus
// vocabulary: mostly by Zipf frequency (common terms match thousands of rows), with a share of
// tail terms (rare terms match a handful). Each mode comes workspace-wide and, as `@customer`,
// scoped to one customer the way an agent asks about the person it talks to: the two are
// different paths (a scan of the workspace vs. one entity's rows), orders of magnitude apart
// at 100k, and a p50 over a mix of both would fall between them and describe neither.
import { entityPicker } from "./corpus.js";
import { between, pick, type Random } from "./random.js";
import type { Vocabulary } from "./vocabulary.js";

export interface Request {
  /** GET sends body as the query string. */
  method?: "GET";
  path: string;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * Every mode, in report order. `graph` (the topic_graph view) is an extra beyond issue 7's list;
 * `render` is the example support_brief artifact for one customer (issue 15); `context` is
 * GET /context for one customer with a task, and `answer` POST /answer about one customer
 * against a local model that answers at once (bench/answer-model.ts): the answer path's own
 * overhead (issue 16); `mcp` is the same requests as `view`, sent as MCP tools/call of
 * the customer_history tool (issue 18); `text@as_of` and `hybrid@as_of` are the requests of
 * `text` and `hybrid` read `as_of` the moment the measurement began (every record existed then, so
 * the hits are the same): the cost of deciding current-ness among the versions of that moment.
 */
export const MODES = [
  "text",
  "text@customer",
  "vector",
  "vector@customer",
  "hybrid",
  "hybrid@customer",
  "recent",
  "recent@customer",
  "structured",
  "structured@customer",
  "rrf",
  "view",
  "graph",
  "render",
  "context",
  "answer",
  "mcp",
  "text@as_of",
  "hybrid@as_of",
] as const;

export type ModeName = (typeof MODES)[number];

/** Modes that draw the very requests of another mode (their random stream is that mode's). */
export const SAME_REQUESTS_AS: Partial<Record<ModeName, ModeName>> = {
  mcp: "view",
  "text@as_of": "text",
  "hybrid@as_of": "hybrid",
};

const MCP_REVISION = "2026-07-28";

/** A view request as a stateless 2026-07-28 tools/call of the tool bound to that view. */
function toolCall(tool: string, view: Request): Request {
  return {
    path: "/mcp",
    headers: {
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MCP_REVISION,
      "mcp-method": "tools/call",
      "mcp-name": tool,
    },
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: tool,
        arguments: view.body,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MCP_REVISION,
          "io.modelcontextprotocol/clientInfo": { name: "engram-bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    },
  };
}

/** Rank at which the tail starts: words past it appear in few records. */
const TAIL_START = 1000;
const RARE_SHARE = 0.3;
const INCLUDE = ["text", "entity", "type", "occurred_at"];
const CHANNELS = ["email", "chat", "phone", "web"];

export function question(vocabulary: Vocabulary, random: Random): string {
  const words = new Set<string>();
  const n = between(random, 1, 4);
  while (words.size < n) {
    const rank =
      random() < RARE_SHARE
        ? TAIL_START + Math.floor(random() * (vocabulary.words.length - TAIL_START))
        : vocabulary.rank(random);
    words.add(vocabulary.words[rank] as string);
  }
  return [...words].join(" ");
}

/** A request generator per mode; `records` sizes the entity draws like the corpus's. */
export function requestMakers(
  vocabulary: Vocabulary,
  records: number,
): Record<ModeName, (random: Random) => Request> {
  const entities = entityPicker(records);
  const asOf = new Date().toISOString();
  const q = (random: Random) => question(vocabulary, random);
  const search = (body: Record<string, unknown>): Request => ({
    path: "/search",
    body: { k: 20, include: INCLUDE, ...body },
  });
  /** "Urgent events": priority at least 3..5, half of them on one channel too. */
  const urgent = (random: Random) => {
    const where: Record<string, unknown> = { priority: { gte: between(random, 3, 5) } };
    if (random() < 0.5) where.channel = { eq: pick(random, CHANNELS) };
    return where;
  };
  const structured = { mode: "structured", fields: ["priority", "channel"] };
  const view = (random: Random): Request => ({
    path: "/views/customer_history/query",
    body: { customer: entities.customer(random), question: q(random) },
  });
  const byPriority = [{ field: "priority", direction: "desc" }];
  const makers: Record<ModeName, (random: Random) => Request> = {
    // Half over everything, half over customer events of one channel.
    text: (random) =>
      random() < 0.5
        ? search({ mode: "text", q: q(random) })
        : search({
            mode: "text",
            q: q(random),
            scope: { collections: ["customer_events"] },
            where: { channel: { eq: pick(random, CHANNELS) } },
          }),
    "text@customer": (random) =>
      search({ mode: "text", q: q(random), scope: { entities: [entities.customer(random)] } }),
    vector: (random) => search({ mode: "vector", q: q(random) }),
    "vector@customer": (random) =>
      search({
        mode: "vector",
        q: q(random),
        scope: { collections: ["customer_events"], entities: [entities.customer(random)] },
      }),
    hybrid: (random) => search({ mode: "hybrid", q: q(random) }),
    "hybrid@customer": (random) =>
      search({
        mode: "hybrid",
        q: q(random),
        scope: { collections: ["customer_events", "customer_facts"], entities: [entities.customer(random)] },
      }),
    recent: (random) =>
      search({
        mode: "recent",
        scope: { collections: ["customer_events"], types: [pick(random, ["ticket", "call"])] },
      }),
    "recent@customer": (random) =>
      search({ mode: "recent", scope: { entities: [entities.customer(random)] } }),
    structured: (random) =>
      search({
        ...structured,
        scope: { collections: ["customer_events"] },
        where: urgent(random),
        order_by: byPriority,
      }),
    "structured@customer": (random) =>
      search({
        ...structured,
        scope: { collections: ["customer_events"], entities: [entities.customer(random)] },
        where: urgent(random),
        order_by: byPriority,
      }),
    rrf: (random) =>
      search({
        q: q(random),
        sources: [
          { name: "words", mode: "text", scope: { collections: ["customer_events"] } },
          { name: "meaning", mode: "vector", scope: { collections: ["customer_events"] } },
        ],
        fuse: { kind: "rrf" },
      }),
    view: (random) => view(random),
    graph: (random) => ({
      path: "/views/topic_graph/query",
      body: { seed: entities.page(random), depth: 2 },
    }),
    render: (random) => ({
      path: "/artifacts/support_brief/render",
      body: { customer: entities.customer(random), question: q(random) },
    }),
    context: (random) => ({
      method: "GET",
      path: "/context",
      body: { entity: entities.customer(random), task: q(random) },
    }),
    answer: (random) => ({
      path: "/answer",
      body: { question: q(random), entities: [entities.customer(random)] },
    }),
    mcp: (random) => toolCall("customer_history", view(random)),
    "text@as_of": (random) => {
      const request = makers.text(random);
      return { ...request, body: { ...request.body, as_of: asOf } };
    },
    "hybrid@as_of": (random) => search({ mode: "hybrid", q: q(random), as_of: asOf }),
  };
  return makers;
}
