// How an enrichment job writes its results (src/records/enrich.ts): models are called per
// sub-batch (ENRICH_LLM_BATCH records when a processor asks an LLM), and while they answer fast
// the results are written together, up to ENRICH_EMBED_BATCH records per transaction; a slow
// model's sub-batches are each written as they are done, and a model failure keeps what the
// sub-batches before it computed. Each record's row version tells which transaction wrote it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { COLLECTIONS_YAML, MINIMAL_PACKAGE, minimalFiles, PROFILES_YAML } from "../support/catalog-files.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { chatReply, embeddingsReply, errorReply, type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";
import { enrichAll } from "../support/worker.js";

const BATCHES = { ENRICH_LLM_BATCH: "2", ENRICH_EMBED_BATCH: "8" };

describe("an enrichment job's writes", () => {
  let t: TestApp;
  let stub: OpenAIStub;
  let headers: { authorization: string };
  let workspaceId: string;
  let entity = 0;

  /** Writes `texts` as one request (one enrichment job) for a new entity; returns the entity. */
  async function writeNotes(texts: string[]): Promise<string> {
    const name = `e${++entity}`;
    await t.writeRecords(
      headers,
      texts.map((text) => ({ collection: "notes", entity: name, type: "note", text })),
    );
    return name;
  }

  /** Per transaction that wrote the entity's ready records, how many it wrote, in seq order. */
  async function writes(name: string): Promise<number[]> {
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND entity = $2 AND ready
       GROUP BY xmin::text ORDER BY min(seq)`,
      [workspaceId, name],
    );
    return rows.map((row) => row.n);
  }

  const unready = async (name: string) =>
    (
      await t.db.query<{ text: string }>(
        "SELECT text FROM records WHERE workspace_id = $1 AND entity = $2 AND NOT ready ORDER BY seq",
        [workspaceId, name],
      )
    ).rows.map((row) => row.text);

  beforeAll(async () => {
    stub = await startOpenAIStub();
    t = await createTestApp();
    const ws = await t.workspace("enrich-writes");
    headers = ws.headers;
    workspaceId = ws.id;
    const files = minimalFiles({
      "conf/models.yaml": `providers:
  stub: { adapter: openai, base_url: "${stub.baseUrl}" }
aliases:
  embed: { provider: stub, model: stub-embed, dimensions: 8, space: stub-8 }
  chat: { targets: ["stub:gpt-test"], params: { max_output_tokens: 64 }, context_tokens: 8000 }
defaults:
  derivation: chat
`,
      "search_profiles/main.yaml": PROFILES_YAML,
      "collections/main.yaml": COLLECTIONS_YAML.replace(
        "    search_profile: main\n  - name: facts",
        "    required_processors: [embedder, urgency]\n    search_profile: main\n  - name: facts",
      ),
      "processors/main.yaml": `processors:
  - { name: embedder, kind: embedding, input: { collections: [notes] }, model: embed }
  - { name: urgency, kind: score, input: { collections: [notes] }, model: chat, scale: [0, 1], default: 0, prompt: "How urgent?" }
`,
      "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1]
processors: [embedder, urgency]
search_profiles: [main]
`,
    });
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers,
      payload: { package: MINIMAL_PACKAGE, files },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await stub.close();
  });
  beforeEach(() => {
    stub.reset();
    stub.handle("embeddings", (request) =>
      embeddingsReply((request.body.input as string[]).map((_, i) => [1, i + 1, 0, 0, 0, 0, 0, 0])),
    );
    stub.handle("chat", () => chatReply("0.5"));
  });

  it("writes fast models' results together, up to ENRICH_EMBED_BATCH records at a time", async () => {
    const name = await writeNotes(Array.from({ length: 10 }, (_, i) => `fast note ${i}`));
    await enrichAll(t.db, workspaceId, { env: BATCHES });
    // Five sub-batches of 2 model calls each, written as 8 and 2.
    expect(await writes(name)).toEqual([8, 2]);
    expect(stub.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(10);
  });

  it("writes each sub-batch of a slow model as it is done", async () => {
    stub.handle("chat", () => ({ ...chatReply("0.5"), delayMs: 150 }));
    const name = await writeNotes(Array.from({ length: 6 }, (_, i) => `slow note ${i}`));
    await enrichAll(t.db, workspaceId, { env: BATCHES });
    expect(await writes(name)).toEqual([2, 2, 2]);
  });

  it("keeps the sub-batches done before a model failure", async () => {
    stub.handle("chat", (request) =>
      JSON.stringify(request.body).includes("failing") ? errorReply(400, "refused") : chatReply("0.5"),
    );
    const texts = ["note a", "note b", "note c", "note d", "failing note e", "note f"];
    const name = await writeNotes(texts);
    const { rows: left } = await t.db.query<{ id: string }>(
      "SELECT id FROM records WHERE workspace_id = $1 AND entity = $2 AND text IN ('failing note e', 'note f')",
      [workspaceId, name],
    );
    await enrichAll(t.db, workspaceId, { env: BATCHES, except: left.map((row) => row.id) });
    expect(await writes(name)).toEqual([4]);
    expect(await unready(name)).toEqual(["failing note e", "note f"]);
  });
});
