// How an enrichment job writes its results (src/records/enrich.ts): models are called per
// sub-batch (ENRICH_LLM_BATCH records when a processor asks an LLM), and while they answer fast
// the results are written together, up to ENRICH_EMBED_BATCH records per transaction; a slow
// model's sub-batches are each written as they are done, and a model failure keeps what the
// sub-batches before it computed. Each record's row version tells which transaction wrote it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import {
  COLLECTIONS_YAML,
  MINIMAL_PACKAGE,
  MODELS_YAML,
  minimalFiles,
  PROFILES_YAML,
  stubModelsYaml,
} from "../support/catalog-files.js";
import {
  chatReply,
  embeddingsReply,
  errorReply,
  type OpenAIStub,
  startOpenAIStub,
} from "../support/openai-stub.js";
import { enrichAll } from "../support/worker.js";

const BATCHES = { ENRICH_LLM_BATCH: "2", ENRICH_EMBED_BATCH: "8" };

/** Catalog files whose notes need an embedding and an LLM score, with these models. */
function scoredNotes(models: string): Record<string, string> {
  return minimalFiles({
    "conf/models.yaml": models,
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
}

interface Space {
  id: string;
  headers: { authorization: string };
}

describe("an enrichment job's writes", () => {
  let t: TestApp;
  let stub: OpenAIStub;
  /** Fake models (answering at once) and models behind a local OpenAI-compatible stub. */
  let fast: Space;
  let stubbed: Space;
  let entity = 0;

  async function workspace(name: string, models: string): Promise<Space> {
    const ws = await t.workspace(name);
    const res = await t.app.inject({
      method: "POST",
      url: "/catalog",
      headers: ws.headers,
      payload: { package: MINIMAL_PACKAGE, files: scoredNotes(models) },
    });
    expect(res.statusCode, res.body).toBe(200);
    return { id: ws.id, headers: ws.headers };
  }

  /** Writes `texts` as one request (one enrichment job) for a new entity; returns the entity. */
  async function writeNotes(space: Space, texts: string[]): Promise<string> {
    const name = `e${++entity}`;
    await t.writeRecords(
      space.headers,
      texts.map((text) => ({ collection: "notes", entity: name, type: "note", text })),
    );
    return name;
  }

  /** Per transaction that wrote the entity's ready records, how many it wrote, in seq order. */
  async function writes(space: Space, name: string): Promise<number[]> {
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND entity = $2 AND ready
       GROUP BY xmin::text ORDER BY min(seq)`,
      [space.id, name],
    );
    return rows.map((row) => row.n);
  }

  const unready = async (space: Space, name: string) =>
    (
      await t.db.query<{ text: string }>(
        "SELECT text FROM records WHERE workspace_id = $1 AND entity = $2 AND NOT ready ORDER BY seq",
        [space.id, name],
      )
    ).rows.map((row) => row.text);

  beforeAll(async () => {
    stub = await startOpenAIStub();
    t = await createTestApp();
    fast = await workspace("enrich-fast", MODELS_YAML);
    stubbed = await workspace("enrich-stubbed", stubModelsYaml(stub.baseUrl));
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
    const name = await writeNotes(
      fast,
      Array.from({ length: 10 }, (_, i) => `fast note ${i}`),
    );
    await enrichAll(t.db, fast.id, { env: BATCHES });
    // Five sub-batches of 2 records, written as 8 and 2.
    expect(await writes(fast, name)).toEqual([8, 2]);
    // The last write also marked the job succeeded: the job row and the last record share the
    // transaction that wrote them. Two reads, as Citus joins no coordinator table (jobs) with a
    // distributed one.
    const last = (
      await t.db.query<{ id: string; xmin: string }>(
        "SELECT id, xmin::text FROM records WHERE workspace_id = $1 AND entity = $2 ORDER BY seq DESC LIMIT 1",
        [fast.id, name],
      )
    ).rows[0];
    const { rows } = await t.db.query<{ xmin: string }>(
      `SELECT xmin::text FROM jobs WHERE workspace_id = $1 AND kind = 'enrich' AND state = 'succeeded'
         AND payload->'record_ids' ? $2`,
      [fast.id, last?.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.xmin).toBe(last?.xmin);
  });

  it("writes each sub-batch of a slow model as it is done", async () => {
    stub.handle("chat", () => ({ ...chatReply("0.5"), delayMs: 150 }));
    const name = await writeNotes(
      stubbed,
      Array.from({ length: 6 }, (_, i) => `slow note ${i}`),
    );
    await enrichAll(t.db, stubbed.id, { env: BATCHES });
    expect(await writes(stubbed, name)).toEqual([2, 2, 2]);
  });

  it("keeps the sub-batches done before a model failure", async () => {
    stub.handle("chat", (request) =>
      JSON.stringify(request.body).includes("failing") ? errorReply(400, "refused") : chatReply("0.5"),
    );
    const texts = ["note a", "note b", "note c", "note d", "failing note e", "note f"];
    const name = await writeNotes(stubbed, texts);
    const { rows: left } = await t.db.query<{ id: string }>(
      "SELECT id FROM records WHERE workspace_id = $1 AND entity = $2 AND text IN ('failing note e', 'note f')",
      [stubbed.id, name],
    );
    await enrichAll(t.db, stubbed.id, { env: BATCHES, except: left.map((row) => row.id) });
    // Held or written as done (a loaded machine may pass the 200 ms), none of the four is lost.
    expect((await writes(stubbed, name)).reduce((a, b) => a + b, 0)).toBe(4);
    expect(await unready(stubbed, name)).toEqual(["failing note e", "note f"]);
  });
});
