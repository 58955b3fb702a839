// The MCP interface file (`mcp/*.yaml`, one interface per file): the allowlist of tools a
// package exposes to agents.
//
// Fields (strict): name (lowercase name), version (positive integer), title (optional text;
// default: the name), instructions (optional text), description (optional), tools (required,
// at least one, in the order tools/list returns them). Each tool: name (unique; MCP tool name
// characters A-Z a-z 0-9 _ - ., 1 to 128), kind (view | artifact | answer | record | ingest |
// retract),
// description (required text), title (optional), and the binding its kind takes (any other
// binding key is refused):
// | kind     | binding                   |
// |----------|---------------------------|
// | view     | view: name@version        |
// | artifact | artifact: name@version    |
// | answer   | none                      |
// | record   | none                      |
// | ingest   | collection: name@version  |
// | retract  | collection: name@version  |
// Link: every bound definition is listed by the same package (missingReference); an answer
// tool needs an active listed collection that is answerable; a retract tool's collection is
// keyed or mixed (only a keyed slot can be retracted).
import {
  type CatalogIndex,
  type Def,
  type McpBindingKind,
  type McpInterfaceDef,
  type McpToolDef,
  type McpToolKind,
  missingReference,
  type ReferenceFamily,
  VERSIONED_REF,
  VERSIONED_REF_HINT,
} from "../definition/index.js";
import { parseName } from "./processors.js";

export const MCP_TOOL_KINDS: readonly McpToolKind[] = [
  "view",
  "artifact",
  "answer",
  "record",
  "ingest",
  "retract",
];

/** MCP tool names: 1 to 128 of A-Z, a-z, 0-9, _, - and . (MCP specification). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The binding key each tool kind takes. */
export const TOOL_BINDING: Record<McpToolKind, McpBindingKind | null> = {
  view: "view",
  artifact: "artifact",
  answer: null,
  record: null,
  ingest: "collection",
  retract: "collection",
};
const BINDING_KEYS: readonly McpBindingKind[] = ["view", "artifact", "collection"];
const BINDING_FAMILY: Record<McpBindingKind, ReferenceFamily & ("views" | "artifacts" | "collections")> = {
  view: "views",
  artifact: "artifacts",
  collection: "collections",
};

function parseTool(src: Def): McpToolDef {
  src.fields(["name", "kind", "title", "description", ...BINDING_KEYS], ["name", "kind", "description"]);
  const kind = src.at("kind").oneOf(MCP_TOOL_KINDS);
  const bindingKey = TOOL_BINDING[kind];
  for (const key of BINDING_KEYS) {
    if (key !== bindingKey && src.at(key).present) {
      src
        .at(key)
        .fail(
          bindingKey ? `a ${kind} tool binds ${bindingKey}, not ${key}` : `an ${kind} tool takes no binding`,
        );
    }
  }
  return {
    name: src
      .at("name")
      .string({ pattern: TOOL_NAME, patternHint: "an MCP tool name (A-Z, a-z, 0-9, _, -, .; 1 to 128)" }),
    kind,
    title: src.at("title").maybe()?.string({ maxLength: 200 }) ?? null,
    description: src.at("description").string(),
    binding: bindingKey
      ? {
          kind: bindingKey,
          reference: src.at(bindingKey).string({ pattern: VERSIONED_REF, patternHint: VERSIONED_REF_HINT }),
        }
      : null,
  };
}

export function parseMcpInterface(src: Def): McpInterfaceDef {
  src.fields(
    ["name", "version", "title", "instructions", "description", "tools"],
    ["name", "version", "tools"],
  );
  const name = parseName(src.at("name"));
  const tools: McpToolDef[] = [];
  for (const toolSrc of src.at("tools").list({ min: 1 })) {
    const tool = parseTool(toolSrc);
    if (tools.some((other) => other.name === tool.name)) {
      toolSrc.at("name").fail(`duplicate tool name "${tool.name}"`, "definition_duplicate");
    }
    tools.push(tool);
  }
  return {
    name,
    version: src.at("version").integer({ min: 1 }),
    title: src.at("title").maybe()?.string({ maxLength: 200 }) ?? name,
    instructions: src.at("instructions").maybe()?.string() ?? null,
    description: src.at("description").maybe()?.string() ?? null,
    tools,
  };
}

export function linkMcpInterface(def: McpInterfaceDef, src: Def, index: CatalogIndex): void {
  def.tools.forEach((tool, i) => {
    const at = src.at("tools").at(i);
    if (tool.binding) {
      const { kind, reference } = tool.binding;
      const family = BINDING_FAMILY[kind];
      if (!index[family].has(reference)) missingReference(index, family, reference, at.at(kind));
      else if (tool.kind === "retract" && index.collections.get(reference)?.def.mode === "event") {
        at.at(kind).fail(
          `a retract tool binds a keyed or mixed collection; ${reference} is an event collection`,
        );
      }
    }
    if (tool.kind === "answer") {
      const answerable = [...index.collections.values()].some(
        (entry) => entry.def.active && entry.def.answerable,
      );
      if (!answerable) {
        at.at("kind").fail("an answer tool needs an active listed collection with answerable: true");
      }
    }
  });
}
