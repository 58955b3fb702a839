// The example package with the LangGraph catalog fragment (clients/langgraph/catalog) added the
// way its README tells a user to: the fragment's files, and its collection, processor and search
// profile listed in the package manifest, published as version 1.1.0.
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { DEFAULT_COLLECTION } from "../../clients/langgraph/src/index.js";
import { readCatalogDirectory } from "../../src/catalog/index.js";
import { EXAMPLE_DIR } from "./example-catalog.js";

const FRAGMENT_DIR = fileURLToPath(new URL("../../clients/langgraph/catalog/", import.meta.url));

interface Manifest {
  name: string;
  version: string;
  collections: string[];
  processors: string[];
  search_profiles: string[];
}

/** The example package plus the fragment, as a POST /catalog body (support@1.1.0). */
export async function catalogWithFragment(): Promise<{ package: string; files: Record<string, string> }> {
  const files = {
    ...(await readCatalogDirectory(EXAMPLE_DIR)),
    ...(await readCatalogDirectory(FRAGMENT_DIR)),
  };
  const manifest = parse(files["packages/support.yaml"] as string) as Manifest;
  manifest.version = "1.1.0";
  manifest.collections.push(`${DEFAULT_COLLECTION}@1`);
  manifest.processors.push("langgraph_embedder");
  manifest.search_profiles.push("langgraph");
  files["packages/support.yaml"] = stringify(manifest);
  return { package: `${manifest.name}@${manifest.version}`, files };
}
