// The example package answering through the local OpenAI stub, and replies citing what the
// model was shown: shared by the answer tests and the read paths erasure must clear.
import { exampleRequest } from "./example-catalog.js";
import { chatReply, type StubRequest } from "./openai-stub.js";

const ID = /\[([0-9a-f-]{36})\]/g;
export const USAGE = { usage: { prompt_tokens: 50, completion_tokens: 9 } };

export function userText(request: StubRequest): string {
  return request.body.messages.find((m: { role: string }) => m.role === "user")?.content ?? "";
}

export function shownIds(request: StubRequest): string[] {
  return [...userText(request).matchAll(ID)].map((m) => m[1] as string);
}

/** A reply citing the first `n` ids the request showed. */
export function citing(n = 1, extra = USAGE) {
  return (request: StubRequest) =>
    chatReply(
      JSON.stringify({
        answer: "The card was declined.",
        citations: shownIds(request).slice(0, n),
        gaps: [],
      }),
      extra,
    );
}

/** The example package with an `answerer` alias on the stub as defaults.answer. */
export async function stubCatalog(baseUrl: string, edit: (files: Record<string, string>) => void = () => {}) {
  const request = await exampleRequest();
  const models = request.files["conf/models.yaml"] as string;
  request.files["conf/models.yaml"] = models
    .replace("providers:\n", `providers:\n  stub: { adapter: openai, base_url: "${baseUrl}" }\n`)
    .replace("aliases:\n", 'aliases:\n  answerer:\n    targets: ["stub:gpt-test"]\n')
    .replace("defaults:\n", "defaults:\n  answer: answerer\n");
  edit(request.files);
  return request;
}
