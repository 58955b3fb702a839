// MODEL_ENDPOINTS (docs/operations.md, "Model endpoints"): a workspace's catalog sends a model
// request, and a secret with it, only where the operator allows. A capture server on loopback
// records every request that reaches it: refused catalogs and refused providers send nothing, on
// every path that calls a model (enrichment, derivations, rerank, answers).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stubCatalog } from "../support/answer-stub.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { chatReply, errorReply, type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";
import { waitFor } from "../support/wait.js";
import { enrichAll, startTestWorker } from "../support/worker.js";

type Headers = { authorization: string };

/** The example package whose chat alias (urgency scores, derivations, rerank) and answers use `evil`. */
async function catalogOn(baseUrl: string, keyEnv?: string) {
  return stubCatalog(baseUrl, (files) => {
    const models = files["conf/models.yaml"] as string;
    files["conf/models.yaml"] = models
      .replace(
        `stub: { adapter: openai, base_url: "${baseUrl}" }`,
        `evil: { adapter: openai, base_url: "${baseUrl}"${keyEnv ? `, api_key_env: ${keyEnv}` : ""} }`,
      )
      .replace('targets: ["stub:gpt-test"]', 'targets: ["evil:gpt-test"]')
      .replace('targets: ["local:fake-chat"]', 'targets: ["evil:gpt-test"]');
  });
}

const EVENT = {
  collection: "customer_events",
  entity: "acme",
  type: "ticket",
  text: "Card declined at checkout",
  occurred_at: "2026-03-01T10:00:00Z",
};

describe("MODEL_ENDPOINTS at publish", () => {
  let stub: OpenAIStub;
  let other: OpenAIStub;
  let base: TestApp;
  let tenants = 0;
  beforeAll(async () => {
    [stub, other] = await Promise.all([startOpenAIStub(), startOpenAIStub()]);
    base = await createTestApp();
  });
  afterAll(async () => {
    await base.close();
    await Promise.all([stub.close(), other.close()]);
  });

  /** Publishes into a new workspace of a server (over one database) with these settings. */
  async function refusal(env: Record<string, string>, payload: object, dryRun = false) {
    const t = await createTestApp({ env, testDb: base.testDb });
    try {
      const ws = await t.workspace(`tenant-${++tenants}`);
      const res = await t.app.inject({
        method: "POST",
        url: dryRun ? "/catalog?dry_run=true" : "/catalog",
        headers: ws.headers,
        payload,
      });
      const installed = await t.app.inject({ url: "/catalog", headers: ws.headers });
      return { status: res.statusCode, body: res.json(), installed: installed.statusCode === 200 };
    } finally {
      await t.app.close();
    }
  }

  for (const secret of ["DATABASE_URL", "METRICS_TOKEN"]) {
    it(`refuses a provider naming ${secret} while MODEL_ENDPOINTS is unset, at publish and at dry run`, async () => {
      for (const dryRun of [false, true]) {
        const res = await refusal({ MODEL_ENDPOINTS: "" }, await catalogOn(stub.baseUrl, secret), dryRun);
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({
          code: "definition_invalid",
          file: "conf/models.yaml",
          path: "providers.evil.base_url",
        });
        expect(res.body.detail).toMatch(/MODEL_ENDPOINTS is unset, so only fake and local providers/);
        expect(res.installed).toBe(false);
      }
      expect(stub.requests).toHaveLength(0);
    });

    it(`refuses ${secret} sent to a listed URL that pairs with no variable or another one`, async () => {
      for (const listed of [stub.baseUrl, `${stub.baseUrl}=OPENAI_API_KEY`]) {
        const res = await refusal({ MODEL_ENDPOINTS: listed }, await catalogOn(stub.baseUrl, secret));
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ file: "conf/models.yaml", path: "providers.evil.api_key_env" });
        expect(res.body.detail).toMatch(new RegExp(`MODEL_ENDPOINTS does not pair \\S+ with ${secret}`));
        // The refusal names what the catalog wrote, never the variable the operator pairs.
        expect(res.body.detail).not.toMatch(/OPENAI_API_KEY/);
        expect(res.installed).toBe(false);
      }
    });
  }

  it("refuses a URL the list does not hold, and a listed URL without its paired variable", async () => {
    const unlisted = await refusal({ MODEL_ENDPOINTS: stub.baseUrl }, await catalogOn(other.baseUrl));
    expect(unlisted.status).toBe(422);
    expect(unlisted.body.path).toBe("providers.evil.base_url");
    expect(unlisted.body.detail).toMatch(/MODEL_ENDPOINTS does not list it/);
    const keyless = await refusal(
      { MODEL_ENDPOINTS: `${stub.baseUrl}=STUB_KEY` },
      await catalogOn(stub.baseUrl),
    );
    expect(keyless.status).toBe(422);
    expect(keyless.body.path).toBe("providers.evil.api_key_env");
  });

  it("publishes a provider whose URL and variable the list pairs (one trailing / aside)", async () => {
    const res = await refusal(
      { MODEL_ENDPOINTS: `${stub.baseUrl}/=STUB_KEY` },
      await catalogOn(stub.baseUrl, "STUB_KEY"),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.installed).toBe(true);
  });
});

describe("MODEL_ENDPOINTS at call time: every model path", () => {
  let stub: OpenAIStub;
  let allowed: TestApp;
  let refused: TestApp;
  let repaired: TestApp;
  let headers: Headers;
  let workspaceId: string;
  const SECRET = "sk-engram-endpoint-test";

  beforeAll(async () => {
    process.env.ENGRAM_TEST_STUB_KEY = SECRET;
    stub = await startOpenAIStub();
    const env = { MODEL_ENDPOINTS: `${stub.baseUrl}=ENGRAM_TEST_STUB_KEY` };
    allowed = await createTestApp({ env });
    const ws = await allowed.workspace("earlier");
    headers = ws.headers;
    workspaceId = ws.id;
    const published = await allowed.publish(headers, await catalogOn(stub.baseUrl, "ENGRAM_TEST_STUB_KEY"));
    expect(published.statusCode, published.body).toBe(200);
    await allowed.writeRecords(headers, [EVENT]);
    stub.handle("chat", () => chatReply("0.5"));
    await enrichAll(allowed.db, workspaceId, { env });
    // The same database served by a deployment whose list no longer allows the provider.
    refused = await createTestApp({ env: { MODEL_ENDPOINTS: "" }, testDb: allowed.testDb });
    // …and by one that lists the URL but pairs it with another variable.
    repaired = await createTestApp({
      env: { MODEL_ENDPOINTS: `${stub.baseUrl}=OPENAI_API_KEY` },
      testDb: allowed.testDb,
    });
  });
  afterAll(async () => {
    await refused.app.close();
    await repaired.app.close();
    await allowed.close();
    await stub.close();
    delete process.env.ENGRAM_TEST_STUB_KEY;
  });
  beforeEach(() => stub.reset());

  const rerank = { mode: "text", q: "card declined", k: 5, rerank: { model: "chat", top_n: 1 } };

  it("an allowed provider is called with its paired variable (the capture works)", async () => {
    stub.enqueue("chat", chatReply(JSON.stringify({ scores: [0.9] })));
    const res = await allowed.app.inject({ method: "POST", url: "/search", headers, payload: rerank });
    expect(res.statusCode, res.body).toBe(200);
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  for (const [deployment, server] of [
    ["MODEL_ENDPOINTS unset", () => refused],
    ["the URL paired with another variable", () => repaired],
  ] as const) {
    it(`rerank (${deployment}): 503 rerank_unavailable naming MODEL_ENDPOINTS, nothing sent`, async () => {
      const res = await server().app.inject({ method: "POST", url: "/search", headers, payload: rerank });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe("rerank_unavailable");
      expect(res.json().detail).toMatch(/MODEL_ENDPOINTS/);
      expect(stub.requests).toHaveLength(0);
    });

    it(`answers (${deployment}): 503 answer_model_unavailable naming MODEL_ENDPOINTS, nothing sent`, async () => {
      const res = await server().app.inject({
        method: "POST",
        url: "/answer",
        headers,
        payload: { question: "Why was the card declined?", entities: ["acme"] },
      });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().code).toBe("answer_model_unavailable");
      expect(res.json().detail).toMatch(/MODEL_ENDPOINTS/);
      expect(stub.requests).toHaveLength(0);
    });
  }

  it("enrichment and derivations: the jobs fail as provider failures, nothing sent", async () => {
    await refused.writeRecords(headers, [{ ...EVENT, text: "Refund asked for the declined card" }]);
    const run = await refused.app.inject({
      method: "POST",
      url: "/processors/customer_profile/run",
      headers,
      payload: { entity: "acme" },
    });
    expect(run.statusCode, run.body).toBe(202);
    const worker = await startTestWorker(refused.db, { MODEL_ENDPOINTS: "" }, { derive: true });
    try {
      const errors = await waitFor(async () => {
        const { rows } = await refused.db.query<{ kind: string; last_error: string }>(
          "SELECT kind, last_error FROM jobs WHERE workspace_id = $1 AND last_error IS NOT NULL",
          [workspaceId],
        );
        const kinds = new Set(rows.map((row) => row.kind));
        return kinds.has("enrich") && kinds.has("derive") ? rows : undefined;
      });
      for (const row of errors) expect(row.last_error).toMatch(/MODEL_ENDPOINTS/);
    } finally {
      await worker.stop();
    }
    expect(stub.requests).toHaveLength(0);
  });
});

describe("what a provider's failure tells a client", () => {
  let stub: OpenAIStub;
  let t: TestApp;
  let headers: Headers;
  const ask = () =>
    t.app.inject({
      method: "POST",
      url: "/answer",
      headers,
      payload: { question: "Why was the card declined?", entities: ["acme"] },
    });

  beforeAll(async () => {
    stub = await startOpenAIStub();
    t = await createTestApp({ env: { MODEL_ENDPOINTS: `${stub.baseUrl}=ENGRAM_TEST_UNSET_VARIABLE` } });
    const ws = await t.workspace("failures");
    headers = ws.headers;
    // Only answers use the stub here, so enrichment (fake) makes the records ready without it.
    const catalog = await stubCatalog(stub.baseUrl, (files) => {
      files["conf/models.yaml"] = (files["conf/models.yaml"] as string).replace(
        `base_url: "${stub.baseUrl}" }`,
        `base_url: "${stub.baseUrl}", api_key_env: ENGRAM_TEST_UNSET_VARIABLE }`,
      );
    });
    const published = await t.publish(headers, catalog);
    expect(published.statusCode, published.body).toBe(200);
    await t.writeRecords(headers, [EVENT]);
    await enrichAll(t.db, ws.id);
  });
  afterAll(async () => {
    await t.close();
    await stub.close();
    delete process.env.ENGRAM_TEST_UNSET_VARIABLE;
  });
  beforeEach(() => stub.reset());

  it("an unset variable is reported without its name", async () => {
    delete process.env.ENGRAM_TEST_UNSET_VARIABLE;
    const res = await ask();
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toMatch(/is not set/);
    expect(res.body).not.toContain("ENGRAM_TEST_UNSET_VARIABLE");
    expect(stub.requests).toHaveLength(0);
  });

  it("a non-JSON error body never reaches the client; a JSON error.message only its first 200 characters", async () => {
    process.env.ENGRAM_TEST_UNSET_VARIABLE = "sk-set-now";
    // 400s: the openai client does not retry them, so one reply answers each question.
    stub.enqueue("chat", {
      status: 400,
      raw: "INTERNAL-SECRET-LINE-1\nroot:x:0:0:root:/root:/bin/bash",
      headers: { "content-type": "text/plain" },
    });
    const raw = await ask();
    expect(raw.statusCode).toBe(503);
    expect(raw.json().detail).toMatch(/the provider answered 400/);
    expect(raw.body).not.toMatch(/INTERNAL-SECRET|root:x/);
    stub.enqueue("chat", errorReply(400, `${"m".repeat(200)}TAIL-BEYOND-200`));
    const long = await ask();
    expect(long.json().detail).toContain(`the provider answered 400: ${"m".repeat(200)}`);
    expect(long.body).not.toContain("TAIL-BEYOND-200");
  });
});
