// A real Engram for the store's tests: `engram serve` with the example package, published again
// with the LangGraph catalog fragment added the way the README tells a user to (the fragment's
// files, and its collection, processor and search profile listed in the package manifest).
import { Engram } from "@engram/client";
import { startEngram } from "../../../test/support/engram-serve.js";
import { catalogWithFragment } from "../../../test/support/langgraph-fragment.js";
import { waitFor } from "../../../test/support/wait.js";
import { DEFAULT_COLLECTION } from "../src/index.js";

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
