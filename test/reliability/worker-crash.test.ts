// The process running the worker (engram serve) killed -9 in the middle of an enrichment job and
// in the middle of a derivation run (each waiting on a slow model), then started again: every
// job finishes exactly once, the run the dead worker left is closed as failed, the derivation's
// output is written once. PGlite data directory and server.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  COLLECTIONS_YAML,
  MINIMAL_PACKAGE,
  minimalFiles,
  PROFILES_YAML,
  stubModelsYaml,
} from "../support/catalog-files.js";
import { type CliStorage, cliStorage, listening, runCli, startCli } from "../support/cli.js";
import { derivationYaml } from "../support/derivations.js";
import { chatReply, embeddingsReply, type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";
import { waitFor } from "../support/wait.js";

const NOTES = 6;
const HANG_MS = 120_000;

describe("the worker's process killed mid-enrichment and mid-derivation", () => {
  let stub: OpenAIStub;
  let storage: CliStorage;
  let env: NodeJS.ProcessEnv;
  let key: string;
  let child: ChildProcess | undefined;
  let closed: Promise<unknown> = Promise.resolve();
  let url = "";

  const serve = async () => {
    const started = startCli(["serve", "--port", "0", "--no-demo"], env);
    child = started;
    closed = new Promise((resolve) => started.once("close", resolve));
    url = (await listening(started)).url;
  };
  const kill = async () => {
    child?.kill("SIGKILL");
    await closed;
  };
  const call = async (method: "GET" | "POST", path: string, body?: object) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const asked = (path: string) => stub.requests.filter((r) => r.path === path).length;

  beforeAll(async () => {
    stub = await startOpenAIStub();
    storage = await cliStorage();
    env = {
      ...storage.env,
      LOG_LEVEL: "info",
      WORKER_LEASE_SECONDS: "2",
      // The server and its worker may call the local model stub (docs/operations.md, "Model endpoints").
      MODEL_ENDPOINTS: stub.baseUrl,
    };
    const created = await runCli(["workspace", "create", "crash", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    key = JSON.parse(created.stdout).api_key;
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await stub.close();
    await storage.cleanup();
  });

  it("finishes every job exactly once after a restart", { timeout: 90_000 }, async () => {
    await serve();
    const files = minimalFiles({
      "conf/models.yaml": stubModelsYaml(stub.baseUrl),
      "search_profiles/main.yaml": PROFILES_YAML,
      "collections/main.yaml": COLLECTIONS_YAML.replace(
        "    search_profile: main\n  - name: facts",
        "    required_processors: [embedder]\n    search_profile: main\n  - name: facts",
      ),
      "processors/main.yaml":
        "processors:\n  - { name: embedder, kind: embedding, input: { collections: [notes] }, model: embed }\n",
      "derivations/main.yaml": `derivations:\n${derivationYaml("digest", {
        emit: "{ from: digest, collection: facts, type: digest, keys: [summary] }",
      })}`,
      "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1]
processors: [embedder, digest]
search_profiles: [main]
`,
    });
    expect((await call("POST", "/catalog", { package: MINIMAL_PACKAGE, files })).status).toBe(200);

    // 1. Enrichment: the embedding call hangs, the process dies, a new one finishes the job.
    stub.handle("embeddings", () => ({ delayMs: HANG_MS, json: {} }));
    const written = await call("POST", "/records", {
      records: Array.from({ length: NOTES }, (_, i) => ({
        collection: "notes",
        entity: "acme",
        type: "note",
        text: `note ${i}: the card was declined`,
      })),
    });
    expect(written.status).toBe(200);
    await waitFor(async () => asked("/v1/embeddings") > 0, 20_000);
    await kill();
    stub.handle("embeddings", (request) =>
      embeddingsReply(
        (request.body.input as string[]).map((_, i) =>
          Array.from({ length: 8 }, (_, d) => (d === i % 8 ? 1 : 0.1)),
        ),
      ),
    );
    await serve();
    await waitFor(async () => {
      const { json } = await call("GET", "/timeline?entity=acme&limit=100");
      return json.records.length === NOTES && json.records.every((r: { ready: boolean }) => r.ready);
    }, 30_000);

    // 2. Derivation: the model call hangs, the process dies, a new one finishes the run.
    stub.handle("chat", () => ({ delayMs: HANG_MS, json: {} }));
    const queued = await call("POST", "/processors/digest/run", { entity: "acme" });
    expect(queued.status).toBe(202);
    await waitFor(async () => asked("/v1/chat/completions") > 0, 20_000);
    await kill();
    stub.handle("chat", (request) => {
      const user = request.body.messages.find((m: { role: string }) => m.role === "user")?.content ?? "";
      const ids = [...user.matchAll(/\[([0-9a-f-]{36})\]/g)].map((m: RegExpMatchArray) => m[1]);
      return chatReply(
        JSON.stringify({ records: [{ key: "summary", text: "Card troubles", citations: ids }] }),
      );
    });
    await serve();
    await waitFor(
      async () => (await call("GET", `/jobs/${queued.json.job_id}`)).json.state === "succeeded",
      30_000,
    );

    const runs = (await call("GET", "/runs?entity=acme&processor=digest")).json.runs;
    expect(runs.map((r: { status: string; failure: string | null }) => [r.status, r.failure]).sort()).toEqual(
      [
        ["failed", "internal"],
        ["succeeded", null],
      ],
    );
    const history = (await call("GET", "/document/history?entity=acme&collection=facts&key=summary")).json;
    expect(history.versions).toHaveLength(1);
    await kill();

    // Every job of the workspace ended once: succeeded, each taken over exactly once.
    const db = await storage.open();
    try {
      const { rows } = await db.query<{ kind: string; state: string; attempts: number }>(
        "SELECT kind, state, attempts FROM jobs ORDER BY kind",
      );
      expect(rows).toEqual([
        { kind: "derive", state: "succeeded", attempts: 2 },
        { kind: "enrich", state: "succeeded", attempts: 2 },
      ]);
      const { rows: vectors } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM embeddings");
      expect(vectors[0]?.n).toBe(NOTES);
    } finally {
      await storage.release(db);
    }
  });
});
