import { exampleRequest } from "./example-catalog.js";

/** The example package with an `answerer` alias on the OpenAI stub as defaults.answer. */
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
