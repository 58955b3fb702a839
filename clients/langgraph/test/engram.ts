// A real Engram for the store's tests: `engram serve` with the example package, published again
// with the LangGraph catalog fragment added the way the README tells a user to (the fragment's
// files, and its collection, processor and search profile listed in the package manifest).
import { fileURLToPath } from "node:url";
import { Engram, type PublishRequest } from "@engram/client";
import { parse, stringify } from "yaml";
import { readCatalogDirectory } from "../../../src/catalog/index.js";
import { startEngram } from "../../../test/support/engram-serve.js";
import { EXAMPLE_DIR } from "../../../test/support/example-catalog.js";
import { waitFor } from "../../../test/support/wait.js";
import { DEFAULT_COLLECTION } from "../src/index.js";

const FRAGMENT_DIR = fileURLToPath(new URL("../catalog/", import.meta.url));

interface Manifest {
  name: string;
  version: string;
  collections: string[];
  processors: string[];
  search_profiles: string[];
}

/** The example package plus the fragment, as version 1.1.0. */
async function catalogWithFragment(): Promise<PublishRequest> {
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

export async function engramWithFragment() {
  const server = await startEngram();
  try {
    const engram = new Engram({ url: server.url, key: server.key });
    await engram.catalog.publish(await catalogWithFragment());
    return { server, engram };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Waits until Engram has enriched every record of an entity (query searches see only those). */
export async function enriched(engram: Engram, entity: string): Promise<void> {
  await waitFor(async () => {
    const rows = await engram.timeline({ entity, collections: [DEFAULT_COLLECTION], limit: 100 }).toArray();
    return rows.length > 0 && rows.every((row) => row.ready);
  });
}
