// The model layer's only import surface: embeddings, scores and JSON tasks over the providers
// of conf/models.yaml (`openai` for any OpenAI-compatible endpoint, `fake` for offline runs).
export { type EndpointRefusal, endpointRefusal } from "./endpoints.js";
export {
  ModelError,
  type ModelErrorContext,
  ModelOutputError,
  ModelTransportError,
  modelAppError,
} from "./errors.js";
export {
  fakeEmbedding,
  fakeRelevance,
  fakeScore,
  loadFakeScript,
  parseFakeScript,
  promptKey,
} from "./fake.js";
export { createModels, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from "./router.js";
export type {
  CreateModelsOptions,
  JsonInput,
  JsonResult,
  ModelCall,
  Models,
  RequestBudget,
  RerankInput,
  RerankResult,
  ScoreInput,
  Usage,
} from "./types.js";
export { wordTokens } from "./words.js";
