// The answer mode's model: a local OpenAI-compatible server (the tests' stub) that answers at
// once, citing the first record it was shown, published as the main workspace's defaults.answer.
// What POST /answer then costs is the answer path's own overhead (search, prompt, checks, HTTP).

import { exampleCatalogRequest } from "../src/catalog/index.js";
import { EXAMPLE_CATALOG_DIR } from "../src/main.js";
import { type Embedder, withEmbedder } from "../test/support/embedders.js";
import { chatReply, type OpenAIStub } from "../test/support/openai-stub.js";
import type { Api } from "./clients.js";

const ID = /\[([0-9a-f-]{36})\]/;

/** Makes the stub answer at once and publishes the example with an answer alias on it. */
export async function startAnswerModel(
  api: Api,
  key: string,
  stub: OpenAIStub,
  embedder: Embedder,
): Promise<OpenAIStub> {
  stub.handle("chat", (request) => {
    const user = request.body?.messages?.find((m: { role: string }) => m.role === "user")?.content ?? "";
    const cited = ID.exec(user)?.[1];
    return chatReply(JSON.stringify({ answer: "From memory.", citations: cited ? [cited] : [], gaps: [] }), {
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });
  });
  // The same embedder as the workspace's: another would be a cut-over to a space with no vectors.
  const request = withEmbedder(await exampleCatalogRequest(EXAMPLE_CATALOG_DIR), embedder);
  request.files["conf/models.yaml"] = (request.files["conf/models.yaml"] as string)
    .replace("providers:\n", `providers:\n  stub: { adapter: openai, base_url: "${stub.baseUrl}" }\n`)
    .replace("aliases:\n", 'aliases:\n  answerer:\n    targets: ["stub:instant"]\n')
    .replace("defaults:\n", "defaults:\n  answer: answerer\n");
  await api.post(key, "/catalog", request);
  // The stub records every request; the bench sends thousands: keep only the last second.
  setInterval(() => stub.requests.splice(0), 1000).unref();
  return stub;
}
