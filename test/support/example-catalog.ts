import { fileURLToPath } from "node:url";
import { exampleCatalogRequest } from "../../src/catalog/index.js";

export const EXAMPLE_DIR = fileURLToPath(new URL("../../examples/catalog/", import.meta.url));

/** The example package as a POST /catalog body. */
export function exampleRequest() {
  return exampleCatalogRequest(EXAMPLE_DIR);
}

/** A view file the example package does not list: published beside it, nothing uses it (prune). */
export const UNLISTED_VIEW = `views:
  - name: unused_view
    version: 1
    parameters:
      q: { type: string, required: true }
    query: { mode: text, q: "{{q}}", scope: { collections: [pages] } }
`;
