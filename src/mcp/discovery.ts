// GET /tools: the discovery envelope of the workspace's agent tools (docs/api.md "GET /tools"),
// whose schema is src/contract/tools.ts.
import { type LoadedCatalog, ref } from "../catalog/index.js";
import { TOOLS_PROTOCOL } from "../contract/index.js";
import { keyTools } from "./tools.js";

/** The envelope as a key sees it: a read-only key's lists no tool that writes. */
export function toolsDiscovery(catalog: LoadedCatalog, readOnly: boolean) {
  const manifest = catalog.index.manifest.def;
  const mcp = catalog.index.mcp?.def;
  return {
    protocol: TOOLS_PROTOCOL,
    package: { name: manifest.name, version: manifest.version, hash: catalog.packageHash },
    interface: mcp
      ? {
          name: mcp.name,
          version: mcp.version,
          hash: catalog.hashes[`mcp:${ref(mcp.name, mcp.version)}`] as string,
        }
      : null,
    catalog_hash: catalog.catalogHash,
    tools: keyTools(catalog, readOnly),
  };
}
