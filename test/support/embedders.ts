// The example package with its embedding alias on one embedder or the other: the local word
// vectors it ships with (docs/catalog.md, "The local embedder"), or fake word hashing. The
// local embedder's tests and `npm run bench -- --embedder` publish it.
import { parse, stringify } from "yaml";

export const EMBEDDERS = ["local", "fake"] as const;
export type Embedder = (typeof EMBEDDERS)[number];

/** The local embedder's space in the package's conf/models.yaml. */
export const LOCAL_SPACE = "wink-sg-100d-v1";

const EMBED_ALIAS: Record<Embedder, Record<string, unknown>> = {
  local: { provider: "words", model: "wink-sg-100d", dimensions: 100, space: LOCAL_SPACE },
  fake: { provider: "local", model: "fake-embed-256", dimensions: 256, space: "fake-256-v1" },
};

export function withEmbedder<R extends { files: Record<string, string> }>(request: R, embedder: Embedder): R {
  const models = parse(request.files["conf/models.yaml"] as string);
  models.providers = { ...models.providers, words: { adapter: "local" }, local: { adapter: "fake" } };
  models.aliases.embed = EMBED_ALIAS[embedder];
  return { ...request, files: { ...request.files, "conf/models.yaml": stringify(models) } };
}
