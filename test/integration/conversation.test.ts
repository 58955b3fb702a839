// The conversation template end to end (docs/conversation.md, replayed): `engram catalog init
// --template conversation` publishes as it is; on the fake provider a message yields a cited
// memory offline; against a local OpenAI-compatible model, the docs' conversation sent through
// the client's remember() yields cited facts, one superseded by a later message (its history
// keeps the older value with superseded_at), one retracted by a tombstone, an uncited fact
// rejected, and the document as of before the move shows the older fact. The MCP tools forget
// (a retraction through the keyed-write rules) and recall run through the official client.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Engram } from "@engram/client";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCatalogDirectory } from "../../src/catalog/index.js";
import { initCatalog } from "../../src/cli/catalog-init.js";
import type { Worker } from "../../src/worker/index.js";
import { insertKey } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { mcpClient, REVISIONS } from "../support/mcp.js";
import { chatReply, type OpenAIStub, type StubRequest, startOpenAIStub } from "../support/openai-stub.js";
import { waitFor } from "../support/wait.js";
import { startTestWorker } from "../support/worker.js";

const PACKAGE = "conversation@1.0.0";
const DOC = fileURLToPath(new URL("../../docs/conversation.md", import.meta.url));

interface Turn {
  id: string;
  role: "user" | "assistant";
  content: string;
}
interface Fact {
  key: string;
  text: string;
  cites: string;
}

/** The docs' conversation block. */
function conversation(markdown: string): Turn[] {
  const block = /```json conversation\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (!block) throw new Error("docs/conversation.md has no ```json conversation block");
  return JSON.parse(block);
}

/** The `| key | text | cites |` table under a heading of the docs. */
function factsTable(markdown: string, heading: string): Fact[] {
  const section = markdown.split(`## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  return section
    .split("\n")
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const [key, text, cites] = line
        .split("|")
        .slice(1, 4)
        .map((cell) => cell.trim());
      return { key: (key as string).replace(/`/g, ""), text: text as string, cites: cites as string };
    });
}

/**
 * The model of the docs' table: what it extracts from each message, by the message's text
 * (cited by the id the prompt shows for it). m1 also answers a key outside key_rule, m3 an uncited fact.
 */
const EXTRACTIONS: Record<string, object[]> = {
  m1: [
    { key: "name", text: "Is called Ada." },
    { key: "home.city", text: "Lives in Lisbon." },
    { key: "diet", text: "Is vegetarian." },
    { key: "Lisbon Address", text: "Lives in Lisbon." },
  ],
  m3: [
    { key: "home.city", text: "Lives in Porto." },
    { key: "mood", text: "Is excited.", uncited: true },
  ],
  m4: [{ key: "diet", retract: true }],
};

const EVIDENCE_MESSAGE = /^\[([0-9a-f-]{36})\] \S+ messages\/message \| (.*)$/gm;

function extractor(turns: Turn[]) {
  return (request: StubRequest) => {
    const prompt = (request.body.messages as { role: string; content: string }[])
      .map((m) => m.content)
      .join("\n");
    const records = [...prompt.matchAll(EVIDENCE_MESSAGE)].flatMap(([, id, text]) => {
      const turn = turns.find((t) => t.content === text);
      return (EXTRACTIONS[turn?.id ?? ""] ?? []).map((row) => {
        const { uncited, ...fact } = row as { uncited?: boolean };
        return { ...fact, citations: uncited ? [] : [id] };
      });
    });
    return chatReply(JSON.stringify({ records }));
  };
}

describe("the conversation template", () => {
  let t: TestApp;
  let dir: string;
  let files: Record<string, string>;
  let stub: OpenAIStub;
  let worker: Worker;
  let url: string;

  /** Waits until the workspace has nothing unready and no job due or running. */
  const settled = (workspaceId: string) =>
    waitFor(async () => {
      const { rows } = await t.db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM records WHERE workspace_id = $1 AND NOT ready)
              + (SELECT count(*) FROM jobs WHERE workspace_id = $1
                  AND (state = 'running' OR (state = 'queued' AND run_after <= now())))::int AS n`,
        [workspaceId],
      );
      return Number(rows[0]?.n) === 0;
    });

  beforeAll(async () => {
    stub = await startOpenAIStub();
    t = await createTestApp();
    dir = await mkdtemp(join(tmpdir(), "engram-conversation-"));
    expect((await initCatalog(dir, { template: "conversation" })).package).toBe(PACKAGE);
    files = await readCatalogDirectory(dir);
    worker = await startTestWorker(t.db, {}, { derive: true });
    url = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
    await stub.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("publishes as it is, and on the fake provider a message yields a memory citing it", async () => {
    const ws = await t.workspace("offline");
    const published = await t.publish(ws.headers, { package: PACKAGE, files });
    expect(published.statusCode, published.body).toBe(200);
    const engram = new Engram({ url, key: ws.key });
    const written = await engram.remember("sam", [{ role: "user", content: "Hello there", id: "hello" }]);
    const message = written.inserted[0]?.id as string;
    await settled(ws.id);
    const document = await engram.document({ entity: "sam", collections: ["memories"] });
    expect(document.beliefs).toEqual([
      expect.objectContaining({ key: "conversation.last_message", citations: [message] }),
    ]);
    // A repeated message id is a no-op.
    const again = await engram.remember("sam", [{ role: "user", content: "Hello there", id: "hello" }]);
    expect(again.duplicates).toEqual([{ index: 0, id: message }]);
  });

  describe("the docs' worked example against an OpenAI-compatible model", () => {
    let markdown: string;
    let turns: Turn[];
    let ws: Awaited<ReturnType<TestApp["workspace"]>>;
    let engram: Engram;
    /** Message record id → the docs' message id (m1…). */
    const label = new Map<string, string>();
    let beforeMove = "";

    const facts = (beliefs: { key: string | null; text: string; citations: string[] }[]): Fact[] =>
      beliefs.map((b) => ({
        key: b.key as string,
        text: b.text,
        cites: b.citations.map((id) => label.get(id) ?? id).join(", "),
      }));

    beforeAll(async () => {
      markdown = await readFile(DOC, "utf8");
      turns = conversation(markdown);
      stub.handle("chat", extractor(turns));
      ws = await t.workspace("ada");
      const models = (files["conf/models.yaml"] as string)
        .replace("providers:\n", `providers:\n  stub: { adapter: openai, base_url: "${stub.baseUrl}" }\n`)
        .replace('targets: ["local:fake-chat"]', 'targets: ["stub:gpt-test"]');
      const published = await t.publish(ws.headers, {
        package: PACKAGE,
        files: { ...files, "conf/models.yaml": models },
      });
      expect(published.statusCode, published.body).toBe(200);
      engram = new Engram({ url, key: ws.key });
      for (const turn of turns) {
        const { id, role, content } = turn;
        const written = await engram.remember("ada", [{ id, role, content }]);
        label.set(written.inserted[0]?.id as string, id);
        await settled(ws.id);
        if (id === "m2") {
          const { rows } = await t.db.query<{ at: Date }>("SELECT clock_timestamp() AS at");
          beforeMove = new Date(rows[0]?.at ?? Number.NaN).toISOString();
        }
      }
    });

    it("holds the docs' current document: the changed fact, the kept one, the retraction", async () => {
      const now = await engram.document({ entity: "ada", collections: ["memories"] });
      expect(facts(now.beliefs)).toEqual(factsTable(markdown, "Memory now"));
      expect(now.retractions.map((r) => r.key)).toEqual(["diet"]);
      const tombstone = await engram.records.get(now.retractions[0]?.id as string);
      expect(tombstone.citations.map((id) => label.get(id))).toEqual(["m4"]);
    });

    it("keeps the superseded value in history, superseded when the newer one was written", async () => {
      const versions = await engram
        .history({ entity: "ada", collection: "memories", key: "home.city" })
        .toArray();
      expect(versions.map((v) => v.text)).toEqual(["Lives in Porto.", "Lives in Lisbon."]);
      const [porto, lisbon] = versions;
      expect(porto?.superseded_at).toBeNull();
      expect(lisbon?.superseded_at).toBe(porto?.created_at);
      expect(lisbon?.citations.map((id) => label.get(id))).toEqual(["m1"]);
    });

    it("answers the docs' document as of before the move", async () => {
      const then = await engram.document({ entity: "ada", collections: ["memories"], as_of: beforeMove });
      expect(facts(then.beliefs)).toEqual(factsTable(markdown, "Memory as of before the move"));
      expect(then.retractions).toEqual([]);
    });

    it("rejected the uncited fact and the key outside key_rule: listed in the runs, never written", async () => {
      const { runs } = (
        await t.app.inject({
          url: "/runs?entity=ada&processor=extract_memories&limit=10",
          headers: ws.headers,
        })
      ).json();
      expect(runs).toHaveLength(turns.length);
      const details = await Promise.all(
        runs.map(
          async (run: { id: string }) =>
            (await t.app.inject({ url: `/runs/${run.id}`, headers: ws.headers })).json().emission.rejected,
        ),
      );
      expect(details.flat()).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            key: "Lisbon Address",
            reason: expect.stringMatching(/key_rule dotted/),
          }),
          expect.objectContaining({ key: "mood", reason: expect.stringMatching(/citations/) }),
        ]),
      );
      expect(details.flat()).toHaveLength(2);
      const mood = await t.app.inject({
        url: "/document/history?entity=ada&collection=memories&key=mood",
        headers: ws.headers,
      });
      expect(mood.json().versions).toEqual([]);
    });

    it("recall finds the current fact, not the superseded one", async () => {
      const { hits } = await engram.recall("ada", "Porto Lisbon lives", { limit: 10 });
      const texts = hits.map((hit) => (hit as { text: string }).text);
      expect(texts).toContain("Lives in Porto.");
      expect(texts).not.toContain("Lives in Lisbon.");
    });

    describe.each(REVISIONS)("the MCP tools at %s", (revision) => {
      let client: Client;
      beforeAll(async () => {
        client = await mcpClient(url, ws.key, revision);
      });
      afterAll(() => client.close());

      it("lists remember, recall, forget and profile; forget is not read-only", async () => {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(["remember", "recall", "forget", "profile"]);
        const forget = tools.find((tool) => tool.name === "forget");
        expect(forget?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
        expect(forget?.inputSchema.required).toEqual(["entity", "key"]);
      });
    });

    it("forget retracts a key through the keyed-write rules; a key with no value is not_found, writing nothing", async () => {
      const client = await mcpClient(url, ws.key, "2026-07-28");
      try {
        const before = await engram.document({ entity: "ada", collections: ["memories"] });
        const name = before.beliefs.find((b) => b.key === "name");
        const result = await client.callTool({
          name: "forget",
          arguments: { entity: "ada", key: "name", reason: "Ada asked to forget her name" },
        });
        expect(result.isError).toBeFalsy();
        const out = result.structuredContent as { id: string; retracted_id: string };
        expect(out.retracted_id).toBe(name?.id);
        const after = await engram.document({ entity: "ada", collections: ["memories"] });
        expect(after.beliefs.map((b) => b.key)).toEqual(["home.city"]);
        expect(after.retractions.map((r) => [r.key, r.id])).toContainEqual(["name", out.id]);
        const tombstone = await engram.records.get(out.id);
        expect(tombstone).toMatchObject({
          tombstone: true,
          type: "retraction",
          text: "Ada asked to forget her name",
        });

        const seq = async () =>
          (
            await t.db.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1",
              [ws.id],
            )
          ).rows[0]?.n;
        const count = await seq();
        for (const key of ["name", "never.set"]) {
          const again = await client.callTool({ name: "forget", arguments: { entity: "ada", key } });
          expect(again.isError).toBe(true);
          const text = (again.content as { text: string }[])[0]?.text as string;
          expect(JSON.parse(text)).toMatchObject({ status: 404, code: "not_found" });
        }
        expect(await seq()).toBe(count);
      } finally {
        await client.close();
      }
    });

    it("a read-only key gets recall and profile, not remember or forget", async () => {
      const key = await insertKey(t.db, { id: ws.id, name: "ada" }, { scope: "read_only" });
      const client = await mcpClient(url, key.api_key, "2026-07-28");
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(["recall", "profile"]);
        const profile = await client.callTool({ name: "profile", arguments: { user: "ada" } });
        expect((profile.structuredContent as { content: string }).content).toContain("Lives in Porto.");
      } finally {
        await client.close();
      }
    });
  });
});
