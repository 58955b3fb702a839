// MCP prompts: each active artifact of the workspace's package as a prompt of its name (a
// package holds one active version per name), its parameters as the prompt's arguments.
// prompts/get renders it as POST /artifacts/{name}/render does and hands the content over as one
// user message. Prompt arguments are strings: each is read as its parameter's type first.
import {
  type GetPromptResult,
  type ListPromptsResult,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { type ArtifactDeps, renderFor } from "../artifacts/index.js";
import {
  type ArtifactDef,
  activeArtifact,
  type InstalledCatalog,
  type LoadedCatalog,
  type ParamDecl,
  queryArguments,
  validateArguments,
} from "../catalog/index.js";
import type { Workspace } from "../platform/workspace.js";

type Prompt = ListPromptsResult["prompts"][number];

/** The active artifacts, by name. */
function promptArtifacts(catalog: LoadedCatalog): ArtifactDef[] {
  return [...catalog.index.artifacts.values()]
    .map((entry) => entry.def)
    .filter((def) => def.active)
    .sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
}

function prompt(def: ArtifactDef): Prompt {
  return {
    name: def.name,
    ...(def.description ? { description: def.description } : {}),
    arguments: Object.entries(def.parameters).map(([name, decl]) => ({
      name,
      ...(decl.description ? { description: decl.description } : {}),
      required: decl.required,
    })),
  };
}

/** prompts/list: one prompt per active artifact. */
export function catalogPrompts(catalog: LoadedCatalog): ListPromptsResult {
  return { prompts: promptArtifacts(catalog).map(prompt) };
}

/** A JSON list of strings, or undefined when the text is not one. */
function jsonList(text: string): string[] | undefined {
  if (!text.trimStart().startsWith("[")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * String arguments as typed parameters, read as GET /artifacts/{name} reads query arguments
 * (numbers, integers and booleans from their text; text that does not read as its type stays
 * text, so validateArguments names the argument); a string_array from a JSON list of strings,
 * else as one item.
 */
function typedArguments(params: Record<string, ParamDecl>, args: Record<string, string>) {
  const lists = Object.entries(args).map(([name, text]) => {
    const list = Object.hasOwn(params, name) && params[name]?.type === "string_array";
    return [name, list ? (jsonList(text) ?? text) : text] as const;
  });
  return queryArguments(params, Object.fromEntries(lists));
}

export interface PromptCall {
  workspace: Workspace;
  catalog: InstalledCatalog;
  name: string;
  args: Record<string, string> | undefined;
}

/** prompts/get: the artifact rendered for these arguments; a refusal is thrown as an AppError. */
export async function getPrompt(deps: ArtifactDeps, call: PromptCall): Promise<GetPromptResult> {
  const { catalog } = call;
  if (!promptArtifacts(catalog).some((def) => def.name === call.name)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt: ${call.name}`);
  }
  const artifact = activeArtifact(catalog, call.name);
  const args = typedArguments(artifact.def.parameters, call.args ?? {});
  const parameters = validateArguments(artifact.def.parameters, args);
  const { content } = await renderFor(deps, call.workspace.id, { catalog, artifact, parameters });
  return {
    ...(artifact.def.description ? { description: artifact.def.description } : {}),
    messages: [{ role: "user", content: { type: "text", text: content } }],
  };
}
