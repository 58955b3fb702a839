// The input and output schemas of each tool kind (docs/api.md "MCP"), JSON Schema 2020-12.
// View and artifact inputs are their own parameters; outputs are the replies (src/contract) of
// the route each kind stands for, so a tool result and the REST reply share one contract.
import { ANSWER_REQUEST_SCHEMA } from "../answer/index.js";
import { type CollectionDef, parametersInputSchema, type ViewKind } from "../catalog/index.js";
import {
  ANSWER,
  bool,
  GET_RECORD,
  RENDER_ARTIFACT,
  type RouteContract,
  type Schema,
  shape,
  successBody,
  uuid,
  VIEW_RESPONSES,
} from "../contract/index.js";
import { ROW_SCHEMA } from "../records/index.js";

export const JSON_SCHEMA_2020 = "https://json-schema.org/draft/2020-12/schema";

/** MCP wants an object at the root of every tool schema. */
function objectRoot(schema: Schema): Schema {
  return { $schema: JSON_SCHEMA_2020, type: "object", ...schema };
}

function routeResponse(route: RouteContract): Schema {
  return objectRoot(successBody(route));
}

/** A view tool answers its view kind's reply only (POST /views/{ref}/query answers any kind's). */
const viewOutputs: Record<ViewKind, Schema> = {
  search: objectRoot(VIEW_RESPONSES.search),
  graph: objectRoot(VIEW_RESPONSES.graph),
  graph_orphans: objectRoot(VIEW_RESPONSES.graph_orphans),
};
export function viewOutput(kind: ViewKind): Schema {
  return viewOutputs[kind];
}

export const artifactOutput = routeResponse(RENDER_ARTIFACT);
export const recordOutput = routeResponse(GET_RECORD);

const answerReply = successBody(ANSWER);
/** POST /answer's reply; the tool never saves (save is forced false), so saved_id is null. */
export const answerOutput = objectRoot({
  ...answerReply,
  properties: {
    ...(answerReply.properties as Record<string, Schema>),
    saved_id: { type: "null" },
  },
});
export const ingestOutput = objectRoot(shape({ id: uuid, ready: bool, duplicate: bool }));
/** The tombstone written, and the value it retracted. */
export const retractOutput = objectRoot(shape({ id: uuid, retracted_id: uuid }));

/** View and artifact tools take their definition's parameters, nothing else. */
export function parametersInput(params: Parameters<typeof parametersInputSchema>[0]): Schema {
  return objectRoot(parametersInputSchema(params));
}

export const recordInput = objectRoot({
  properties: { id: { ...uuid, description: "the record id" } },
  required: ["id"],
  additionalProperties: false,
});

/** POST /answer's body without save: tools answer without writing (docs/api.md "MCP"). */
const { save: _save, ...answerFields } = ANSWER_REQUEST_SCHEMA.properties;
export const answerInput = objectRoot({ ...ANSWER_REQUEST_SCHEMA, properties: answerFields });

const row = ROW_SCHEMA.properties;

/**
 * The write row of the bound collection: the collection is fixed by the tool, and derived_from,
 * scores, annotations, status and tombstone are not the agent's to set. `key` is there for
 * keyed (required) and mixed (optional) collections; `content` carries the collection's schema.
 */
export function ingestInput(collection: CollectionDef): Schema {
  const key = { ...row.key, type: "string", description: "the slot this fact fills (one value per key)" };
  return objectRoot({
    properties: {
      entity: { ...row.entity, description: "the entity the record is about" },
      type: { ...row.type, description: "what kind of record this is" },
      ...(collection.mode === "event" ? {} : { key }),
      text: { ...row.text, description: "the record's text (what search and answers read)" },
      content: { ...collection.schema, description: `structured content of ${collection.name}` },
      occurred_at: { type: "string", format: "date-time", description: "when it happened (default: now)" },
      dedupe_key: { ...row.dedupe_key, description: "a repeat with the same key returns the original id" },
    },
    required: collection.mode === "keyed" ? ["entity", "type", "key"] : ["entity", "type"],
    additionalProperties: false,
  });
}

/** A retraction names the slot (entity and key) and may say why; the tombstone's type is fixed. */
export const retractInput = objectRoot({
  properties: {
    entity: { ...row.entity, description: "the entity whose value is retracted" },
    key: { ...row.key, type: "string", description: "the key whose current value no longer holds" },
    reason: { ...row.text, description: "why it no longer holds (the tombstone's text)" },
  },
  required: ["entity", "key"],
  additionalProperties: false,
});
