// The tools a workspace's catalog exposes: the package's MCP interface compiled into typed tool
// descriptors (GET /tools and tools/list share them). Descriptors depend only on the installed
// catalog, so they are built once per installed catalog.
import type { LoadedCatalog, McpToolDef, McpToolKind } from "../catalog/index.js";
import type { Schema } from "../contract/index.js";
import {
  answerInput,
  answerOutput,
  artifactOutput,
  ingestInput,
  ingestOutput,
  parametersInput,
  recordInput,
  recordOutput,
  retractInput,
  retractOutput,
  viewOutput,
} from "./schemas.js";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: false;
  idempotentHint: boolean;
  openWorldHint: false;
}

export interface ToolDescriptor {
  name: string;
  kind: McpToolKind;
  title: string | null;
  description: string;
  binding: { kind: string; reference: string | null; hash: string | null };
  input_schema: Schema;
  output_schema: Schema;
  annotations: ToolAnnotations;
}

/**
 * All closed-world and non-destructive (docs/api.md "MCP"): only ingest and retract write, and a
 * retraction supersedes a value that stays in the slot's history.
 */
function annotations(kind: McpToolKind): ToolAnnotations {
  return {
    readOnlyHint: kind !== "ingest" && kind !== "retract",
    destructiveHint: false,
    idempotentHint: kind === "view" || kind === "artifact" || kind === "record",
    openWorldHint: false,
  };
}

/** Input and output schemas compiled from the bound definition. */
function schemas(tool: McpToolDef, catalog: LoadedCatalog): { input: Schema; output: Schema } {
  const reference = tool.binding?.reference ?? "";
  switch (tool.kind) {
    case "view": {
      const view = catalog.index.views.get(reference)?.def;
      if (!view) throw new Error(`view tool ${tool.name}: view ${reference} is not loaded`);
      return { input: parametersInput(view.parameters), output: viewOutput(view.kind) };
    }
    case "artifact": {
      const artifact = catalog.index.artifacts.get(reference)?.def;
      return { input: parametersInput(artifact?.parameters ?? {}), output: artifactOutput };
    }
    case "ingest": {
      const collection = catalog.index.collections.get(reference)?.def;
      if (!collection) throw new Error(`ingest tool ${tool.name}: collection ${reference} is not loaded`);
      return { input: ingestInput(collection), output: ingestOutput };
    }
    case "retract":
      return { input: retractInput, output: retractOutput };
    case "record":
      return { input: recordInput, output: recordOutput };
    case "answer":
      return { input: answerInput, output: answerOutput };
  }
}

/** The hash of what a binding names; answer and record tools bind the route itself. */
function bindingHash(tool: McpToolDef, catalog: LoadedCatalog): string | null {
  if (!tool.binding) return null;
  const family = { view: "views", artifact: "artifacts", collection: "collections" }[tool.binding.kind];
  return catalog.hashes[`${family}:${tool.binding.reference}`] ?? null;
}

function describe(tool: McpToolDef, catalog: LoadedCatalog): ToolDescriptor {
  const { input, output } = schemas(tool, catalog);
  return {
    name: tool.name,
    kind: tool.kind,
    title: tool.title,
    description: tool.description,
    binding: {
      kind: tool.binding?.kind ?? tool.kind,
      reference: tool.binding?.reference ?? null,
      hash: bindingHash(tool, catalog),
    },
    input_schema: input,
    output_schema: output,
    annotations: annotations(tool.kind),
  };
}

const built = new WeakMap<LoadedCatalog, ToolDescriptor[]>();

/** The tools a key sees: a read-only key only those that do not write (readOnlyHint). */
export function keyTools(catalog: LoadedCatalog, readOnly: boolean): ToolDescriptor[] {
  const tools = catalogTools(catalog);
  return readOnly ? tools.filter((tool) => tool.annotations.readOnlyHint) : tools;
}

/** The catalog's tools in declared order; none without an MCP interface. */
export function catalogTools(catalog: LoadedCatalog): ToolDescriptor[] {
  let tools = built.get(catalog);
  if (!tools) {
    tools = (catalog.index.mcp?.def.tools ?? []).map((tool) => describe(tool, catalog));
    built.set(catalog, tools);
  }
  return tools;
}
