// Erasure of an entity with a three-level derived closure across entities, checked against
// every read path of the example package: nothing erased is returned anywhere, the keyed
// predecessor is current again, and the audit holds no erased content.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { citing, stubCatalog, userText } from "../support/answer-stub.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";
import { waitFor } from "../support/wait.js";
import { enrichAll, startTestWorker } from "../support/worker.js";

// Words that appear only in erased records (reads that name the entity echo it, so the entity
// name is checked in the audit only).
const ERASED_WORDS = ["zanzibar", "quokka"];

describe("erasure across every read path", () => {
  let t: TestApp;
  let stub: OpenAIStub;
  let ws: { id: string; headers: { authorization: string } };
  const ids: Record<string, string> = {};
  const get = (url: string) => t.app.inject({ url, headers: ws.headers });
  const post = (url: string, payload: object) =>
    t.app.inject({ method: "POST", url, headers: ws.headers, payload });
  const write = async (name: string, row: object) => {
    const res = await post("/records", { records: [row] });
    expect(res.statusCode, res.body).toBe(200);
    ids[name] = res.json().inserted[0].id;
  };
  const erased = () => ["e1", "e2", "plan2", "page", "edge"].map((n) => ids[n] as string);
  const accessMarks = async (recordIds: string[]) =>
    (
      await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM record_access WHERE workspace_id = $1 AND record_id = ANY($2::uuid[])",
        [ws.id, recordIds],
      )
    ).rows[0]?.n;

  /** The body of every read path that could show the erased records. */
  async function readEverything(): Promise<Record<string, string>> {
    const bodies: Record<string, string> = {};
    const read = async (name: string, res: Promise<{ statusCode: number; body: string }>) => {
      const r = await res;
      expect(r.statusCode, `${name}: ${r.body}`).toBeLessThan(500);
      bodies[name] = r.body;
    };
    for (const name of Object.keys(ids).filter((n) => n !== "indexJob"))
      await read(`record ${name}`, get(`/records/${ids[name]}`));
    for (const entity of ["alice-7", "bob", "wiki", "kb"]) {
      await read(`timeline ${entity}`, get(`/timeline?entity=${entity}&include_system=true&status=all`));
      await read(`document ${entity}`, get(`/document?entity=${entity}`));
    }
    await read("timeline all", get("/timeline?status=all&include_system=true&limit=100"));
    await read("history", get("/document/history?entity=bob&collection=customer_facts&key=plan"));
    await read("history page", get("/document/history?entity=wiki&collection=pages&key=zpage"));
    await read("delta", get("/delta?consumer=erasure-reader&limit=100&include_system=true"));
    await read("delta bob", get("/delta?consumer=erasure-bob&entity=bob&limit=100"));
    const q = "outage invoice plan page";
    for (const mode of ["text", "vector", "hybrid"]) {
      await read(`search ${mode}`, post("/search", { mode, q, k: 100, include: ["text", "entity"] }));
    }
    await read("search recent", post("/search", { mode: "recent", k: 100, include: ["text"] }));
    await read(
      "search structured",
      post("/search", {
        mode: "structured",
        k: 100,
        scope: { collections: ["customer_events"] },
        order_by: [{ field: "priority", direction: "desc" }],
        include: ["text"],
      }),
    );
    await read(
      "search rrf",
      post("/search", {
        q,
        sources: [
          { name: "words", mode: "text", scope: { collections: ["customer_events", "customer_facts"] } },
          { name: "newest", mode: "recent", scope: { collections: ["customer_events", "pages"] } },
        ],
        fuse: { kind: "rrf" },
        k: 100,
        include: ["text"],
      }),
    );
    await read(
      "view history",
      post("/views/customer_history/query", { customer: "alice-7", question: "outage invoice" }),
    );
    await read("view urgent", post("/views/urgent_events/query", { customer: "alice-7", min_priority: 1 }));
    await read("graph", post("/views/topic_graph/query", { seed: "zpage", direction: "both", depth: 3 }));
    await read(
      "graph other",
      post("/views/topic_graph/query", { seed: "other", direction: "both", depth: 3 }),
    );
    await read("orphans", post("/views/orphan_pages/query", { limit: 500 }));
    for (const entity of ["alice-7", "bob"]) {
      await read(`context ${entity}`, get(`/context?entity=${entity}&task=outage%20invoice%20plan`));
    }
    stub.reset();
    stub.handle("chat", citing(3));
    await read("answer", post("/answer", { question: "outage invoice plan" }));
    await read(
      "answer scoped",
      post("/answer", { question: "what happened?", entities: ["alice-7", "bob"] }),
    );
    // The evidence the model was shown is a read path too.
    bodies["answer evidence"] = stub.requests.map(userText).join("\n");
    for (const customer of ["alice-7", "bob"]) {
      await read(
        `render ${customer}`,
        post("/artifacts/support_brief/render", { customer, question: "outage plan" }),
      );
    }
    return bodies;
  }

  beforeAll(async () => {
    stub = await startOpenAIStub();
    t = await createTestApp();
    ws = await t.workspace("erasure-reads");
    const published = await post("/catalog", await stubCatalog(stub.baseUrl));
    expect(published.statusCode, published.body).toBe(200);
    const event = { collection: "customer_events", entity: "alice-7", type: "ticket" };
    await write("e1", {
      ...event,
      text: "Zanzibar outage reported",
      content: { channel: "chat", topic: "zanzibar", priority: 5 },
    });
    await write("e2", { ...event, text: "Quokka invoice disputed", content: { priority: 4 } });
    const fact = { collection: "customer_facts", entity: "bob", type: "fact", key: "plan" };
    await write("plan1", { ...fact, text: "Bob is on the basic plan", content: { tier: "free" } });
    // Level 1, another entity: bob's current plan rests on alice's event.
    await write("plan2", {
      ...fact,
      text: "Bob moved to pro after the zanzibar call",
      content: { tier: "pro" },
      derived_from: [ids.e1],
    });
    // Level 2: a page built on that fact; level 3: an edge built on the page.
    await write("page", {
      collection: "pages",
      entity: "wiki",
      type: "page",
      key: "zpage",
      text: "Zanzibar quokka page",
      content: { title: "zpage" },
      derived_from: [ids.plan2],
    });
    await write("other", {
      collection: "pages",
      entity: "wiki",
      type: "page",
      key: "other",
      text: "Other page",
      content: { title: "other" },
    });
    await write("edge", {
      collection: "edges",
      entity: "kb",
      type: "link",
      key: "zpage-other",
      text: "zpage cites other",
      content: { subject: "zpage", object: "other", predicate: "cites" },
      derived_from: [ids.page],
    });
    await write("kept", {
      collection: "edges",
      entity: "kb",
      type: "link",
      key: "other-keep",
      text: "other cites keep",
      content: { subject: "other", object: "keep", predicate: "cites" },
    });
    await enrichAll(t.db, ws.id);
  });
  afterAll(async () => {
    await t.close();
    await stub.close();
  });

  it("sees the records before the erasure (the checks below can fail)", async () => {
    const bodies = await readEverything();
    for (const name of [
      "search text",
      "search vector",
      "search hybrid",
      "search rrf",
      "view urgent",
      "delta",
    ]) {
      expect(bodies[name], name).toContain(ids.e1);
    }
    expect(bodies.graph).toContain(ids.edge);
    expect(bodies["render bob"]).toContain("zanzibar");
    expect(bodies["document bob"]).toContain(ids.plan2);
    const all = Object.values(bodies).join("\n");
    for (const id of erased()) expect(all).toContain(id);
    for (const word of ERASED_WORDS) expect(all.toLowerCase()).toContain(word);
    expect(all).toContain("alice-7");
    // Searches marked what they returned accessed, erased records too.
    expect(await accessMarks(erased())).toBeGreaterThan(0);
  });

  it("erases the entity and its derived closure in other entities, and reports counts", async () => {
    const res = await post("/erase", { entity: "alice-7" });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      audit_id: expect.any(String),
      deleted: 5,
      affected_entities: 4,
      index_delete_job_id: expect.any(String),
    });
    ids.audit = body.audit_id;
    ids.indexJob = body.index_delete_job_id;
    const job = (await get(`/jobs/${body.index_delete_job_id}`)).json();
    expect(job).toMatchObject({ kind: "index_delete", state: "queued" });
  });

  it("returns nothing erased from any read path", async () => {
    const bodies = await readEverything();
    for (const [name, body] of Object.entries(bodies)) {
      // A 404 for an erased id names the id asked for.
      if (name.startsWith("record ")) continue;
      for (const id of erased()) expect(body, name).not.toContain(id);
      for (const word of ERASED_WORDS) expect(body.toLowerCase(), name).not.toContain(word);
    }
    for (const name of ["e1", "e2", "plan2", "page", "edge"]) {
      expect((await get(`/records/${ids[name]}`)).statusCode).toBe(404);
    }
    // What was not derived from the entity is still there.
    for (const name of ["plan1", "other", "kept"]) {
      expect((await get(`/records/${ids[name]}`)).statusCode).toBe(200);
    }
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM embeddings WHERE workspace_id = $1 AND record_id = ANY($2::uuid[])",
      [ws.id, erased()],
    );
    expect(rows[0]?.n).toBe(0);
    expect(await accessMarks(erased())).toBe(0);
  });

  it("makes the keyed predecessor current again", async () => {
    const doc = (await get("/document?entity=bob")).json();
    expect(doc.beliefs.map((b: { id: string }) => b.id)).toEqual([ids.plan1]);
    const history = (await get("/document/history?entity=bob&collection=customer_facts&key=plan")).json();
    expect(history.versions.map((v: { id: string }) => v.id)).toEqual([ids.plan1]);
    const render = (
      await post("/artifacts/support_brief/render", { customer: "bob", question: "plan" })
    ).json();
    expect(render.manifest.blocks.facts.record_ids).toEqual([ids.plan1]);
    expect(render.content).toContain("Bob is on the basic plan");
    // The page slot had only the erased row: no head is left for it.
    const wiki = (await get("/document?entity=wiki")).json();
    expect(wiki.beliefs.map((b: { key: string }) => b.key)).toEqual(["other"]);
  });

  it("writes a _system erasure audit with hashes and counts only", async () => {
    const audit = (await get(`/records/${ids.audit}`)).json();
    expect(audit).toMatchObject({ collection: "_system", type: "erasure", entity: "workspace", text: "" });
    expect(audit.content).toEqual({
      mode: "entity",
      entity_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      deleted: 5,
      derived: 3,
      affected_entities: 4,
      heads_restored: 1,
      derivation_jobs_cancelled: expect.any(Number),
    });
    const text = JSON.stringify(audit).toLowerCase();
    for (const word of [...ERASED_WORDS, "alice-7"]) expect(text).not.toContain(word);
    for (const id of erased()) expect(text).not.toContain(id);
    // Excluded from timelines unless asked for.
    const timeline = (await get("/timeline?limit=100")).json();
    expect(timeline.records.map((r: { id: string }) => r.id)).not.toContain(ids.audit);
  });

  it("runs the index-deletion job, which keeps only the count", async () => {
    const worker = await startTestWorker(t.db);
    try {
      await waitFor(async () => (await get(`/jobs/${ids.indexJob}`)).json().state === "succeeded");
    } finally {
      await worker.stop();
    }
    const { rows } = await t.db.query<{ payload: object }>(
      "SELECT payload FROM jobs WHERE workspace_id = $1 AND id = $2",
      [ws.id, ids.indexJob],
    );
    expect(rows[0]?.payload).toEqual({ records: 5 });
  });
});
