// Each tool's output schema is the reply of its own kind: a search view's, a graph view's, a
// graph_orphans view's, an artifact's, a record's, an answer's and an ingest's, never a union of
// several. Every kind is called through the official client over real HTTP and its
// structuredContent is checked against the outputSchema the same server listed.
import type { Client } from "@modelcontextprotocol/client";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { citing, stubCatalog } from "../support/answer-stub.js";
import { type McpHarness, mcpHarness, REVISIONS } from "../support/mcp.js";
import { type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";
import { enrichAll } from "../support/worker.js";

type Schema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

/** The example package's tools plus one for each view kind the interface file leaves out. */
const EXTRA_TOOLS = `  - name: urgent_events
    kind: view
    view: urgent_events@1
    description: A customer's events, most urgent first.
  - name: topic_graph
    kind: view
    view: topic_graph@1
    description: Pages linked to a page.
  - name: orphan_pages
    kind: view
    view: orphan_pages@1
    description: Pages no edge links to.
`;

/** Each tool by the kind of reply it gives, with arguments that get a non-empty reply. */
const CALLS: Record<string, { kind: string; args: () => Record<string, unknown> }> = {
  customer_history: { kind: "search", args: () => ({ customer: "acme", question: "invoice charged" }) },
  urgent_events: { kind: "search", args: () => ({ customer: "acme", min_priority: 1 }) },
  topic_graph: { kind: "graph", args: () => ({ seed: "a", depth: 2 }) },
  orphan_pages: { kind: "graph_orphans", args: () => ({}) },
  support_brief: { kind: "artifact", args: () => ({ customer: "acme", question: "billing" }) },
  ask_memory: { kind: "answer", args: () => ({ question: "What about the invoice?", entities: ["acme"] }) },
  get_record: { kind: "record", args: () => ({ id: invoice }) },
  log_event: { kind: "ingest", args: () => ({ entity: "acme", type: "call", text: "Called back" }) },
};

const SEARCH_ROOT = ["hits", "ranking", "rendered", "truncated", "backend", "profiles"];
const VIEW_ROOT = ["view", "parameters", "input_record_ids"];
const GRAPH_ROOT = ["nodes", "paths", "citations"];

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();
function validator(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema as object);
    compiled.set(key, validate);
  }
  return validate;
}

let stub: OpenAIStub;
let h: McpHarness;
let invoice: string;

async function post(path: string, body: unknown) {
  const res = await h.test.app.inject({
    method: "POST",
    url: path,
    headers: h.headers,
    payload: body as object,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

beforeAll(async () => {
  stub = await startOpenAIStub();
  const catalog = await stubCatalog(stub.baseUrl, (files) => {
    files["mcp/support.yaml"] = `${files["mcp/support.yaml"]?.trimEnd()}\n${EXTRA_TOOLS}`;
  });
  h = await mcpHarness({}, catalog);
  const link = (subject: string, object: string) => ({
    collection: "edges",
    entity: "kb",
    type: "link",
    key: `${subject}-${object}`,
    text: `${subject} cites ${object}`,
    content: { subject, object, predicate: "cites" },
  });
  const page = (key: string) => ({
    collection: "pages",
    entity: "wiki",
    type: "page",
    key,
    text: `Page ${key}`,
    content: { title: key },
  });
  const written = await post("/records", {
    records: [
      {
        collection: "customer_events",
        entity: "acme",
        type: "ticket",
        text: "Invoice was charged twice",
        content: { channel: "email", priority: 4 },
      },
      { collection: "customer_facts", entity: "acme", type: "fact", key: "plan", text: "Pro plan" },
      link("a", "b"),
      link("b", "c"),
      page("a"),
      page("b"),
      page("c"),
      page("lonely"),
    ],
  });
  invoice = written.inserted[0].id;
  await enrichAll(h.test.db, h.workspaceId);
});
beforeEach(() => {
  stub.reset();
  stub.handle("chat", citing(1));
});
afterAll(async () => {
  await h.close();
  await stub.close();
});

describe.each(REVISIONS)("tool output schemas at %s", (revision) => {
  let client: Client;
  let listed: Map<string, Schema>;
  const replies = new Map<string, unknown>();

  beforeAll(async () => {
    client = await h.connect(revision);
    const { tools } = await client.listTools();
    listed = new Map(tools.map((tool) => [tool.name, tool.outputSchema as Schema]));
  });

  it("lists a tool of every kind", () => {
    expect([...listed.keys()].sort()).toEqual(Object.keys(CALLS).sort());
  });

  it("GET /tools output_schema equals the tools/list outputSchema of each tool", async () => {
    const res = await h.test.app.inject({ url: "/tools", headers: h.headers });
    expect(res.statusCode).toBe(200);
    const discovered = res.json().tools as { name: string; kind: string; output_schema: Schema }[];
    expect(discovered.map((tool) => tool.name).sort()).toEqual([...listed.keys()].sort());
    for (const tool of discovered) expect(tool.output_schema, tool.name).toEqual(listed.get(tool.name));
  });

  it.each(Object.keys(CALLS))(
    "%s: structuredContent validates against its listed outputSchema",
    async (name) => {
      const call = CALLS[name] as (typeof CALLS)[string];
      const result = await client.callTool({ name, arguments: call.args() });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      const reply = result.structuredContent as Record<string, unknown>;
      const text = (result.content as { text: string }[])[0]?.text as string;
      expect(reply).toEqual(JSON.parse(text));
      const schema = listed.get(name) as Schema;
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.type).toBe("object");
      const validate = validator(schema);
      expect(validate(reply), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      // Every property the schema requires is there (a reply with nothing to show proves little).
      for (const field of schema.required ?? []) expect(reply, `${name}.${field}`).toHaveProperty(field);
      if (["search", "graph", "graph_orphans"].includes(call.kind)) {
        expect((reply.hits as unknown[]).length, `${name} hits`).toBeGreaterThan(0);
      }
      replies.set(name, reply);
    },
  );

  it("each schema is its kind's own: no union at the root, every root field required", () => {
    for (const [name, schema] of listed) {
      expect(schema, name).not.toHaveProperty("anyOf");
      expect(schema, name).not.toHaveProperty("oneOf");
      expect(schema.additionalProperties, name).toBe(false);
      expect([...(schema.required ?? [])].sort(), name).toEqual(Object.keys(schema.properties ?? {}).sort());
    }
  });

  it("a search view's schema requires the search reply and has none of the graph replies' fields", () => {
    for (const name of ["customer_history", "urgent_events"]) {
      const schema = listed.get(name) as Schema;
      expect([...(schema.required ?? [])].sort(), name).toEqual([...SEARCH_ROOT, ...VIEW_ROOT].sort());
      for (const field of [...GRAPH_ROOT, "orphans"])
        expect(schema.properties, name).not.toHaveProperty(field);
    }
  });

  it("a graph view's schema requires the walk; an orphans view's the orphans", () => {
    const graph = listed.get("topic_graph") as Schema;
    expect([...(graph.required ?? [])].sort()).toEqual(
      ["hits", "truncated", "backend", "profiles", ...VIEW_ROOT, ...GRAPH_ROOT].sort(),
    );
    expect(graph.properties).not.toHaveProperty("orphans");
    expect(graph.properties).not.toHaveProperty("ranking");
    const orphans = listed.get("orphan_pages") as Schema;
    expect([...(orphans.required ?? [])].sort()).toEqual(
      ["hits", "orphans", "truncated", "backend", "profiles", ...VIEW_ROOT].sort(),
    );
    for (const field of [...GRAPH_ROOT, "ranking", "rendered"])
      expect(orphans.properties).not.toHaveProperty(field);
  });

  it("the other kinds' schemas describe their own replies", () => {
    const required = (name: string) => [...((listed.get(name) as Schema).required ?? [])].sort();
    expect(required("support_brief")).toEqual(["content", "manifest"]);
    expect(required("get_record")).toEqual(
      expect.arrayContaining(["id", "collection", "entity", "text", "seq"]),
    );
    expect(required("ask_memory")).toEqual(
      ["answer", "citations", "gaps", "input_ids", "model_usage", "retrieval_query", "saved_id"].sort(),
    );
    // The tool never saves: saved_id is always null.
    expect((listed.get("ask_memory") as Schema).properties?.saved_id).toEqual({ type: "null" });
    expect(required("log_event")).toEqual(["duplicate", "id", "ready"]);
  });

  it("a reply validates against its own kind's schema and no other kind's", () => {
    expect([...replies.keys()].sort()).toEqual(Object.keys(CALLS).sort());
    for (const [name, reply] of replies) {
      const kind = (CALLS[name] as (typeof CALLS)[string]).kind;
      for (const [other, schema] of listed) {
        const otherKind = (CALLS[other] as (typeof CALLS)[string]).kind;
        const validate = validator(schema);
        expect(validate(reply), `${name} (${kind}) against ${other} (${otherKind})`).toBe(kind === otherKind);
      }
    }
  });
});
