// GET /tools: the discovery envelope of the workspace's agent tools (spec "Discovery").
import type { LoadedCatalog } from "../catalog/index.js";
import { ref } from "../catalog/types.js";
import { anyObject, bool, listOf, orNull, type Schema, str } from "../http/schema-parts.js";
import { shape } from "../http/shape.js";
import { keyTools } from "./tools.js";

/** Versions only this envelope, not the MCP wire revision (CONVENTIONS "Name and prefix"). */
export const TOOLS_PROTOCOL = "engram.mcp/v1";

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

const hints = shape({ readOnlyHint: bool, destructiveHint: bool, idempotentHint: bool, openWorldHint: bool });

/** The documented body of GET /tools. */
export const TOOLS_DISCOVERY_SCHEMA: Schema = shape({
  protocol: { const: TOOLS_PROTOCOL },
  package: shape({ name: str, version: str, hash: str }),
  interface: orNull(shape({ name: str, version: { type: "integer" }, hash: str })),
  catalog_hash: str,
  tools: listOf(
    shape({
      name: str,
      kind: { enum: ["view", "artifact", "answer", "record", "ingest"] },
      title: { type: ["string", "null"] },
      description: str,
      binding: shape({
        kind: str,
        reference: { type: ["string", "null"] },
        hash: { type: ["string", "null"] },
      }),
      input_schema: anyObject,
      output_schema: anyObject,
      annotations: hints,
    }),
  ),
});
