// Response bodies of the artifact routes (responses.ts merges them into RESPONSES).
import { freshnessEntry } from "./derivation-responses.js";
import { bool, int, listOf, mapOf, orNull, str, timestamp, uuid } from "./schema-parts.js";
import { shape } from "./shape.js";

const blockManifest = shape({ record_ids: listOf(uuid), tokens: int, truncated: bool });

const manifest = shape({
  artifact: shape({ name: str, version: int, definition_hash: str }),
  package: shape({ name: str, version: str, hash: str }),
  catalog_hash: str,
  record_ids: listOf(uuid),
  blocks: mapOf(blockManifest),
  // The freshness of GET /document, per entity a document block read.
  freshness: listOf(shape({ entity: str, ...freshnessEntry })),
  truncated: bool,
  tokens: int,
});

const render = shape({ content: str, manifest });

const snapshot = shape({ snapshot_id: uuid, record_id: uuid, content: str, manifest, created_at: timestamp });

const learningTarget = shape({
  artifact: shape({ name: str, version: int, definition_hash: str, kind: str }),
  entity: str,
  block: str,
  heads: listOf(shape({ collection: str, key: str, record_id: uuid, run_id: { type: ["string", "null"] } })),
  base_run_id: { type: ["string", "null"] },
});

const useMetadata = {
  id: uuid,
  artifact: shape({ name: str, version: int, definition_hash: str }),
  render_sha256: str,
  snapshot_id: { type: ["string", "null"] },
  learning_target: orNull(learningTarget),
  telemetry: shape({
    "engram.use.id": uuid,
    "engram.artifact.name": str,
    "engram.artifact.version": int,
    "engram.artifact.definition_hash": str,
    "engram.artifact.render_sha256": str,
  }),
  render: shape({ tokens: int, truncated: bool }),
  created_at: timestamp,
  expires_at: timestamp,
  expired: bool,
};

export const ARTIFACT_RESPONSES = {
  "POST /artifacts/:name/render": { status: 200, schema: render },
  "POST /artifacts/:name/snapshot": { status: 200, schema: snapshot },
  "GET /artifacts/:name": { status: 200, schema: snapshot },
  "POST /artifacts/:name/uses": { status: 200, schema: shape({ ...useMetadata, content: str }) },
  "GET /artifact-uses/:id": { status: 200, schema: shape(useMetadata) },
  "POST /artifact-uses/:id/feedback": {
    status: 200,
    schema: shape({
      record_id: uuid,
      ready: bool,
      duplicate: bool,
      collection: str,
      entity: str,
      type: str,
      artifact_use: uuid,
    }),
  },
};
