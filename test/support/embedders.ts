// The example package with its embedding alias on another embedder: the local word vectors
// (docs/catalog.md, "The local embedder") in place of fake hashing. The local embedder's tests
// and `npm run bench -- --embedder local` publish it.
export const EMBEDDERS = ["fake", "local"] as const;
export type Embedder = (typeof EMBEDDERS)[number];

/** The local embedder's space in the package's conf/models.yaml. */
export const LOCAL_SPACE = "wink-sg-100d-v1";

export function withEmbedder<R extends { files: Record<string, string> }>(request: R, embedder: Embedder): R {
  if (embedder === "fake") return request;
  const models = request.files["conf/models.yaml"] as string;
  const local = models
    .replace("providers:\n", "providers:\n  words:\n    adapter: local\n")
    .replace(/provider: local\n(\s+)model: fake-embed-256/, "provider: words\n$1model: wink-sg-100d")
    .replace("dimensions: 256", "dimensions: 100")
    .replace("space: fake-256-v1", `space: ${LOCAL_SPACE}`);
  if (!local.includes(`space: ${LOCAL_SPACE}`) || !local.includes("model: wink-sg-100d"))
    throw new Error("the package's conf/models.yaml no longer has the fake embedding alias this replaces");
  return { ...request, files: { ...request.files, "conf/models.yaml": local } };
}
