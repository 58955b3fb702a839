// The model layer with every call reported as it ends (metrics), whatever the adapter: one report
// per call of the Models interface, after the router tried the alias's targets.
import type { ModelCall, Models, Usage } from "./types.js";

export function observedModels(
  models: Models,
  endpointOf: (alias: string) => string,
  onCall: (call: ModelCall) => void,
): Models {
  async function report<T>(
    alias: string,
    operation: ModelCall["operation"],
    call: () => Promise<T>,
    usage?: (result: T) => Usage,
  ): Promise<T> {
    const endpoint = endpointOf(alias);
    let result: T;
    try {
      result = await call();
    } catch (error) {
      onCall({ endpoint, operation, ok: false });
      throw error;
    }
    onCall({ endpoint, operation, ok: true, ...(usage ? { usage: usage(result) } : {}) });
    return result;
  }
  return {
    embed: (alias, texts) => report(alias, "embed", () => models.embed(alias, texts)),
    score: (alias, input) => report(alias, "score", () => models.score(alias, input)),
    json: (alias, input) =>
      report(
        alias,
        "json",
        () => models.json(alias, input),
        (result) => result.usage,
      ),
    rerank: (alias, input) => report(alias, "rerank", () => models.rerank(alias, input)),
  };
}
