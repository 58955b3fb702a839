import { fileURLToPath } from "node:url";
import { exampleCatalogRequest } from "../../src/catalog/index.js";

export const EXAMPLE_DIR = fileURLToPath(new URL("../../examples/catalog/", import.meta.url));

/** The example package as a POST /catalog body. */
export function exampleRequest() {
  return exampleCatalogRequest(EXAMPLE_DIR);
}
