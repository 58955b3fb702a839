// MCP resources: an entity's current document (GET /document) behind the resource template
// engram://document/{entity}. Entities are unbounded, so resources/list lists none and the
// template is how a host finds them; a read answers what GET /document?entity=… answers,
// through the route's own domain function and its query schema.
import {
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
} from "@modelcontextprotocol/server";
import type { ArtifactDeps } from "../artifacts/index.js";
import { DOCUMENT } from "../contract/index.js";
import { readDocument } from "../derivations/index.js";
import { validationError } from "../platform/errors.js";
import { compileQuerySchema, toFieldErrors } from "../platform/schema.js";
import type { Workspace } from "../platform/workspace.js";

const DOCUMENT_URI = "engram://document/";
const JSON_TYPE = "application/json";

export const DOCUMENT_TEMPLATE: ListResourceTemplatesResult["resourceTemplates"][number] = {
  uriTemplate: `${DOCUMENT_URI}{entity}`,
  name: "document",
  title: "An entity's current document",
  description:
    "The entity's current beliefs and retractions with their freshness, as GET /document answers " +
    "(active records, every collection); the entity percent-encoded.",
  mimeType: JSON_TYPE,
};

export const NO_RESOURCES: ListResourcesResult = { resources: [] };

/** The query GET /document checks, so an entity it refuses is refused here alike. */
const documentQuery = compileQuerySchema(DOCUMENT.schema.querystring as object);

/** The entity a document URI names: one percent-encoded segment, no query or fragment. */
function documentEntity(uri: string): string {
  if (!uri.startsWith(DOCUMENT_URI)) throw new ResourceNotFoundError(uri, `unknown resource: ${uri}`);
  const segment = uri.slice(DOCUMENT_URI.length);
  const malformed = (why: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `malformed document URI ${uri}: ${why}`, { uri });
  if (segment === "") throw malformed("it names no entity");
  if (/[/?#]/.test(segment)) throw malformed("the entity must be one percent-encoded segment");
  try {
    return decodeURIComponent(segment);
  } catch {
    throw malformed("invalid percent-encoding");
  }
}

export interface ResourceRead {
  workspace: Workspace;
  uri: string;
}

/** resources/read: the document as one JSON text, exactly GET /document's body. */
export async function readResource(
  deps: Pick<ArtifactDeps, "db" | "documentMaxRecords">,
  read: ResourceRead,
): Promise<ReadResourceResult> {
  const entity = documentEntity(read.uri);
  if (!documentQuery({ entity })) {
    const errors = toFieldErrors(documentQuery.errors);
    throw validationError(
      `invalid entity: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`,
      errors,
    );
  }
  const document = await readDocument(deps.db, read.workspace, {
    entity,
    status: "active",
    maxRecords: deps.documentMaxRecords,
  });
  return { contents: [{ uri: read.uri, mimeType: JSON_TYPE, text: JSON.stringify(document) }] };
}
