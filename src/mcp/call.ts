// tools/call: one tool of the workspace's current catalog, run through the same domain function
// as its REST route. Refusals (anything a REST client would get as 4xx/5xx problem details)
// come back as AppErrors for the server to turn into isError results.
import { answer } from "../answer/index.js";
import { type ArtifactDeps, renderFor } from "../artifacts/index.js";
import {
  activeCollection,
  type InstalledCatalog,
  listedArtifact,
  validateArguments,
} from "../catalog/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { compileSchema, toFieldErrors } from "../platform/schema.js";
import type { Workspace } from "../platform/workspace.js";
import { getRecord, liveSlot, writeRecords } from "../records/index.js";
import { runView } from "../search/index.js";
import type { ToolDescriptor } from "./tools.js";

export interface ToolDeps extends ArtifactDeps {
  maxBatchRecords: number;
}

export interface ToolCall {
  workspace: Workspace;
  catalog: InstalledCatalog;
  tool: ToolDescriptor;
  args: Record<string, unknown>;
}

/** Arguments checked against the tool's input schema, every problem listed (422 request_schema). */
function checkArguments(tool: ToolDescriptor, args: Record<string, unknown>): void {
  const validate = compileSchema(tool.input_schema);
  if (!validate(args)) {
    const errors = toFieldErrors(validate.errors);
    throw validationError(
      `invalid arguments: ${errors.map((e) => `${e.path || "(root)"}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
}

/** The bound collection must still be the active version of its name: writes go there only. */
function boundCollection(call: ToolCall): string {
  const reference = call.tool.binding.reference as string;
  const listed = call.catalog.index.collections.get(reference)?.def;
  const active = listed && activeCollection(call.catalog.index, listed.name);
  if (!listed || active?.def.version !== listed.version) {
    throw new AppError("request_schema", `collection ${reference} is not active in the workspace catalog`);
  }
  return listed.name;
}

async function ingest(deps: ToolDeps, call: ToolCall) {
  const collection = boundCollection(call);
  const row = { ...call.args, collection };
  const { inserted, duplicates } = await writeRecords(deps.db, call.workspace, [row], {
    maxBatch: deps.maxBatchRecords,
  });
  const fresh = inserted[0];
  if (fresh) return { id: fresh.id, ready: fresh.ready, duplicate: false };
  const original = duplicates[0] as { id: string };
  const stored = await getRecord(deps.db, call.workspace.id, original.id);
  return { id: original.id, ready: stored.ready as boolean, duplicate: true };
}

/** The type of the tombstone a retract tool writes. */
export const RETRACTION_TYPE = "retraction";

/**
 * A tombstone for the slot through the keyed-write rules of POST /records; a slot with no live
 * value has nothing to retract (404, nothing written).
 */
async function retract(deps: ToolDeps, call: ToolCall) {
  const collection = boundCollection(call);
  const { entity, key, reason } = call.args as { entity: string; key: string; reason?: string };
  const live = await liveSlot(deps.db, call.workspace.id, { entity, collection, key });
  if (live === null) {
    throw new AppError("not_found", `${entity} holds no current value for key "${key}" in ${collection}`);
  }
  const row = { collection, entity, key, type: RETRACTION_TYPE, tombstone: true, text: reason ?? "" };
  const { inserted } = await writeRecords(deps.db, call.workspace, [row], { maxBatch: deps.maxBatchRecords });
  return { id: (inserted[0] as { id: string }).id, retracted_id: live };
}

/** Runs the call; the result is what the REST route of the tool's kind answers. */
export async function runTool(deps: ToolDeps, call: ToolCall): Promise<unknown> {
  const { catalog, tool, workspace } = call;
  // The destination of an ingest or retraction is the tool's: a collection argument is discarded
  // (docs/api.md "MCP").
  const { collection: _discarded, ...rest } = call.args;
  const args = tool.kind === "ingest" || tool.kind === "retract" ? rest : call.args;
  checkArguments(tool, args);
  const reference = tool.binding.reference as string;
  switch (tool.kind) {
    case "view":
      return runView(deps, { workspaceId: workspace.id, catalog, id: reference, args });
    case "artifact": {
      const artifact = listedArtifact(catalog, reference);
      const parameters = validateArguments(artifact.def.parameters, args);
      const { content, manifest } = await renderFor(deps, workspace.id, { catalog, artifact, parameters });
      return { content, manifest };
    }
    case "record":
      return getRecord(deps.db, workspace.id, args.id as string);
    case "ingest":
      return ingest(deps, { ...call, args });
    case "retract":
      return retract(deps, { ...call, args });
    case "answer":
      return answer(deps, workspace.id, args, { save: false });
  }
}
