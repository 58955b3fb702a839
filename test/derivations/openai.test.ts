import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MODELS_YAML } from "../support/catalog-files.js";
import { derivationFiles, derivationHarness, derivationYaml, type Harness } from "../support/derivations.js";
import { chatReply, errorReply, type OpenAIStub, startOpenAIStub } from "../support/openai-stub.js";

const ID = /\[([0-9a-f-]{36})\]/g;

/** A reply citing every evidence id the request showed. */
function citingReply(body: { messages: { role: string; content: string }[] }, wrap = (json: string) => json) {
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  const ids = [...user.matchAll(ID)].map((m) => m[1]);
  return chatReply(
    wrap(JSON.stringify({ records: [{ key: "summary", text: "From the stub", citations: ids }] })),
    {
      usage: { prompt_tokens: 40, completion_tokens: 12 },
    },
  );
}

describe("derivations through the openai adapter (a local OpenAI-compatible server)", () => {
  let stub: OpenAIStub;
  let h: Harness;
  let entity = 0;
  const note = async () => {
    entity++;
    await h.write([
      { collection: "notes", entity: `e${entity}`, type: "note", text: "Card declined at checkout" },
    ]);
    return `e${entity}`;
  };
  const facts = async () =>
    (
      await h.t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND collection = 'facts'",
        [h.ws.id],
      )
    ).rows[0]?.n;

  beforeAll(async () => {
    stub = await startOpenAIStub();
    const models = MODELS_YAML.replace(
      "providers:\n  local:\n    adapter: fake\n",
      `providers:\n  local:\n    adapter: fake\n  stub: { adapter: openai, base_url: "${stub.baseUrl}" }\n  plain: { adapter: openai, base_url: "${stub.baseUrl}", json_capability: none }\n`,
    )
      .replace('targets: ["local:fake-chat"]', 'targets: ["stub:gpt-test"]')
      .replace("defaults:", '  prose:\n    targets: ["plain:gpt-test"]\ndefaults:');
    h = await derivationHarness(
      "derive-openai",
      derivationFiles(
        [derivationYaml("digest"), derivationYaml("prosy", { trigger: "    model: prose\n" })],
        {
          extraFiles: { "conf/models.yaml": models },
        },
      ),
    );
  });
  afterAll(async () => {
    await h.close();
    await stub.close();
  });
  beforeEach(() => stub.reset());

  it("asks with the task's output_schema and a reply cap within the token budget, then writes cited records", async () => {
    stub.handle("chat", (request) => citingReply(request.body));
    const entity = await note();
    const { run } = await h.derive("digest", entity, {});
    expect(run.status, run.failure_detail).toBe("succeeded");
    expect(run.model_usage).toEqual({ calls: 1, prompt_tokens: 40, completion_tokens: 12 });
    const sent = stub.requests.find((r) => r.path === "/v1/chat/completions")?.body;
    expect(sent.response_format.type).toBe("json_schema");
    expect(sent.response_format.json_schema.schema).toMatchObject({ required: ["records"] });
    expect(sent.max_completion_tokens).toBeLessThanOrEqual(512);
    expect(run.output_ids).toHaveLength(1);
  });

  it("with json_capability none, reads the JSON out of a prose reply and sends no response_format", async () => {
    stub.handle("chat", (request) => citingReply(request.body, (json) => `Here you go:\n${json}\nDone.`));
    const entity = await note();
    const { run } = await h.derive("prosy", entity, {});
    expect(run.status, run.failure_detail).toBe("succeeded");
    const sent = stub.requests.find((r) => r.path === "/v1/chat/completions")?.body;
    expect(sent.response_format).toBeUndefined();
  });

  it("classifies malformed replies as model_output (asked again once within max_llm_calls) and writes nothing", async () => {
    stub.handle("chat", () => chatReply("I cannot answer in JSON, sorry"));
    const entity = await note();
    const before = await facts();
    const { run, job } = await h.derive("digest", entity, {});
    expect(run).toMatchObject({ status: "failed", failure: "model_output" });
    expect(stub.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(2);
    expect(job.state).toBe("dead");
    expect(await facts()).toBe(before);
  });

  it("classifies a transport failure as model_unavailable, writes nothing and retries the job later", async () => {
    stub.handle("chat", () => errorReply(503));
    const entity = await note();
    const before = await facts();
    const { run, job } = await h.derive("digest", entity, {});
    expect(run).toMatchObject({ status: "failed", failure: "model_unavailable" });
    expect(job).toMatchObject({ state: "queued", attempts: 1 });
    expect(job.last_error).toMatch(/^model_unavailable/);
    expect(new Date(job.run_after).getTime()).toBeGreaterThan(Date.now());
    expect(await facts()).toBe(before);
  });
});
