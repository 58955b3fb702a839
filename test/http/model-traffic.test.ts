// Model traffic through a real `engram serve` (docs/operations.md, "Model endpoints"), against a
// local OpenAI-compatible stub that records every request it receives:
// - an answer's model_usage.calls and engram_model_calls_total equal the requests the provider
//   received, the retry of a transient failure included, and never pass the answer's budget
//   (2 requests, 4 with rewrite);
// - a redirect is a provider failure: nothing reaches the port it points to;
// - a provider quoting the Authorization header it received has the key shown nowhere: not in a
//   response, a job, a run, an MCP result or a line of the server's log.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { citing, stubCatalog } from "../support/answer-stub.js";
import { type CliResult, type CliStorage, cliStorage, collect, listening, startCli } from "../support/cli.js";
import { parse, value } from "../support/metrics.js";
import {
  chatReply,
  errorReply,
  type OpenAIStub,
  type StubRequest,
  startOpenAIStub,
} from "../support/openai-stub.js";
import { waitFor } from "../support/wait.js";

const KEY_VARIABLE = "ENGRAM_TEST_PROVIDER_KEY";
const SECRET = "sk-provider-key-5f0c2a9e7d";
const TOKEN = "metrics-token-model-traffic-0123";
const QUESTION = "Why was the card declined at checkout?";

let stub: OpenAIStub;
/** Where the stub redirects to: it must never receive anything. */
let elsewhere: OpenAIStub;
let storage: CliStorage;
let child: ChildProcess;
let output: Promise<CliResult>;
let url: string;
let headers: Record<string, string>;
/** Every response body the tests read, to search for the key at the end. */
const bodies: string[] = [];

/** The example package on the stub, sending the key: answers only, or every model call (chat too). */
async function catalog(chatOnStub: boolean) {
  return stubCatalog(stub.baseUrl, (files) => {
    let models = files["conf/models.yaml"] as string;
    models = models.replace(
      `stub: { adapter: openai, base_url: "${stub.baseUrl}" }`,
      `stub: { adapter: openai, base_url: "${stub.baseUrl}", api_key_env: ${KEY_VARIABLE} }`,
    );
    if (chatOnStub) models = models.replace('targets: ["local:fake-chat"]', 'targets: ["stub:gpt-test"]');
    files["conf/models.yaml"] = models;
  });
}

async function call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
  const res = await fetch(new URL(path, url), {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }), ...extra },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  bodies.push(text);
  return { status: res.status, text, json: () => JSON.parse(text) };
}

const isAnswer = (request: StubRequest) =>
  String(request.body?.messages?.[0]?.content ?? "").startsWith("Answer the question");
const isRewrite = (request: StubRequest) =>
  String(request.body?.messages?.[0]?.content ?? "").startsWith("Rewrite the question");

async function answerCalls(): Promise<{ all: number; retries: number }> {
  const res = await fetch(new URL("/metrics", url), { headers: { authorization: `Bearer ${TOKEN}` } });
  const samples = parse(await res.text());
  const labels = { endpoint: stub.baseUrl, operation: "json" };
  return {
    all: value(samples, "engram_model_calls_total", labels),
    retries: value(samples, "engram_model_calls_total", { ...labels, attempt: "retry" }),
  };
}

beforeAll(async () => {
  stub = await startOpenAIStub();
  elsewhere = await startOpenAIStub();
  storage = await cliStorage();
  child = startCli(["serve", "--port", "0", "--demo"], {
    ...storage.env,
    LOG_LEVEL: "debug",
    METRICS_TOKEN: TOKEN,
    MODEL_ENDPOINTS: `${stub.baseUrl}=${KEY_VARIABLE}`,
    [KEY_VARIABLE]: SECRET,
  });
  const started = listening(child);
  output = collect(child);
  const ready = await started;
  url = ready.url;
  headers = { authorization: `Bearer ${/egk_[A-Za-z0-9_-]{43}/.exec(ready.stderr)?.[0]}` };
  const published = await call("POST", "/catalog", await catalog(false));
  expect(published.status, published.text).toBe(200);
  const written = await call("POST", "/records", {
    records: [
      { collection: "customer_events", entity: "acme", type: "ticket", text: "Card declined at checkout" },
    ],
  });
  expect(written.status, written.text).toBe(200);
  const id = written.json().inserted[0].id;
  await waitFor(async () => (await call("GET", `/records/${id}`)).json().ready === true);
}, 60_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await output;
  await storage?.cleanup();
  await stub?.close();
  await elsewhere?.close();
});

describe("an answer's requests: counted where usage is, never past the budget", () => {
  for (const [name, failure] of [
    ["a 500", errorReply(500)],
    ["a 429 with Retry-After", { ...errorReply(429), headers: { "retry-after": "0" } }],
  ] as const) {
    it(`the retry of ${name} is in model_usage.calls and in the metrics`, async () => {
      stub.reset();
      let answers = 0;
      stub.handle("chat", (request) => (++answers === 1 ? failure : citing()(request)));
      const before = await answerCalls();
      const res = await call("POST", "/answer", { question: QUESTION });
      expect(res.status, res.text).toBe(200);
      const received = stub.requests.filter(isAnswer).length;
      expect(received).toBe(2);
      expect(res.json().model_usage.calls).toBe(received);
      const after = await answerCalls();
      expect(after.all - before.all).toBe(received);
      expect(after.retries - before.retries).toBe(1);
    });
  }

  it("sends at most 2 requests per answer to a provider that always fails", async () => {
    stub.reset();
    stub.handle("chat", () => errorReply(500));
    const before = await answerCalls();
    const res = await call("POST", "/answer", { question: QUESTION });
    expect(res.status).toBe(503);
    expect(res.json().code).toBe("answer_model_unavailable");
    expect(stub.requests).toHaveLength(2);
    expect((await answerCalls()).all - before.all).toBe(2);
  });

  it("sends at most 4 with rewrite: 2 for the rewrite, 2 for the answer", async () => {
    stub.reset();
    let rewrites = 0;
    stub.handle("chat", (request) => {
      if (isRewrite(request))
        return ++rewrites === 1 ? errorReply(500) : chatReply('{"query":"card declined"}');
      return chatReply("not JSON at all");
    });
    const res = await call("POST", "/answer", { question: QUESTION, rewrite: true });
    expect(res.status).toBe(502);
    expect(res.json().code).toBe("answer_model");
    expect(stub.requests.filter(isRewrite)).toHaveLength(2);
    expect(stub.requests.filter(isAnswer)).toHaveLength(2);
  });

  for (const status of [307, 302]) {
    it(`follows no ${status}: the answer is 503 naming it, and nothing reaches the other port`, async () => {
      stub.reset();
      elsewhere.reset();
      stub.handle("chat", () => ({
        status,
        headers: { location: `${elsewhere.baseUrl}/chat/completions` },
        json: { error: { message: "moved" } },
      }));
      const res = await call("POST", "/answer", { question: QUESTION });
      expect(res.status).toBe(503);
      expect(res.json().detail).toMatch(new RegExp(`answered ${status}, a redirect, which is not followed`));
      expect(stub.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    });
  }
});

describe("a provider that quotes the key it was sent", () => {
  it("has the key shown in no response, job, run, MCP result or log line", async () => {
    const published = await call("POST", "/catalog", await catalog(true));
    expect(published.status, published.text).toBe(200);
    stub.reset();
    stub.handle("chat", (request) =>
      errorReply(401, `rejected credentials ${request.headers.authorization}`),
    );

    const answer = await call("POST", "/answer", { question: QUESTION });
    expect(answer.status).toBe(503);
    expect(answer.json().detail).toMatch(/rejected credentials Bearer \[redacted\]/);

    const search = await call("POST", "/search", {
      mode: "text",
      q: "card declined",
      scope: { entities: ["acme"] },
      rerank: { model: "chat", top_n: 5 },
    });
    expect(search.status, search.text).toBe(503);
    expect(search.json().detail).toMatch(/\[redacted\]/);

    const mcp = await call(
      "POST",
      "/mcp",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "ask_memory", arguments: { question: QUESTION } },
      },
      { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    );
    expect(mcp.status).toBe(200);
    expect(mcp.text).toMatch(/\[redacted\]/);

    // Enrichment scores with the chat alias: its job fails and keeps the provider's words.
    const written = await call("POST", "/records", {
      records: [
        { collection: "customer_events", entity: "acme", type: "ticket", text: "Refund asked twice" },
      ],
    });
    expect(written.status).toBe(200);
    const job = await waitFor(async () => {
      const jobs = (await call("GET", "/jobs?kind=enrich")).json().jobs as {
        id: string;
        last_error: string;
      }[];
      return jobs.find((entry) => entry.last_error !== null);
    });
    expect((await call("GET", `/jobs/${job.id}`)).text).toMatch(/\[redacted\]/);

    const queued = await call("POST", "/processors/customer_profile/run", { entity: "acme" });
    expect(queued.status, queued.text).toBe(202);
    const run = await waitFor(async () => (await call("GET", "/runs?status=failed")).json().runs[0]);
    expect((await call("GET", `/runs/${run.id}`)).text).toMatch(/\[redacted\]/);

    // The provider saw the key (the test can fail), and nothing handed it back.
    expect(stub.requests.some((request) => request.headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    for (const body of bodies) expect(body).not.toContain(SECRET);
    child.kill("SIGTERM");
    const { stdout, stderr } = await output;
    expect(`${stdout}${stderr}`).toMatch(/\[redacted\]/);
    expect(`${stdout}${stderr}`).not.toContain(SECRET);
  }, 60_000);
});
