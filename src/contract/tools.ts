// The agent tool routes (docs/api.md "MCP"): GET /tools, the discovery envelope of the
// workspace's tools, and POST /mcp, the MCP endpoint (JSON-RPC, documented loosely: the MCP
// revisions define its messages).
import { shape } from "./closed-object.js";
import type { RouteContract } from "./route.js";
import { anyObject, bool, listOf, orNull, str } from "./schema-parts.js";

/** Versions only the GET /tools envelope, not the MCP wire revision (docs/api.md "GET /tools"). */
export const TOOLS_PROTOCOL = "engram.mcp/v1";

const hints = shape({ readOnlyHint: bool, destructiveHint: bool, idempotentHint: bool, openWorldHint: bool });

export const TOOLS: RouteContract = {
  method: "GET",
  url: "/tools",
  schema: {
    summary: "The workspace's agent tools: package, interface, input and output schemas",
    tags: ["discovery"],
    response: {
      200: shape({
        protocol: { const: TOOLS_PROTOCOL },
        package: shape({ name: str, version: str, hash: str }),
        interface: orNull(shape({ name: str, version: { type: "integer" }, hash: str })),
        catalog_hash: str,
        tools: listOf(
          shape({
            name: str,
            kind: { enum: ["view", "artifact", "answer", "record", "ingest", "retract"] },
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
      }),
    },
  },
};

const jsonRpc = { type: "object", additionalProperties: true } as const;

export const MCP: RouteContract = {
  method: "POST",
  url: "/mcp",
  schema: {
    summary: "MCP Streamable HTTP (2026-07-28 stateless, and 2025 revisions through initialize)",
    tags: ["mcp"],
    body: { description: "a JSON-RPC 2.0 request or notification" },
    response: {
      200: { description: "JSON-RPC response, or a request-scoped text/event-stream", ...jsonRpc },
      202: { description: "notification accepted", type: "null" },
      400: { description: "JSON-RPC error: header or protocol-version mismatch", ...jsonRpc },
      406: {
        description: "JSON-RPC error: Accept lacks application/json or text/event-stream",
        ...jsonRpc,
      },
      415: { description: "JSON-RPC error: Content-Type is not application/json", ...jsonRpc },
    },
  },
};
