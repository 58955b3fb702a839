// save: true (docs/api.md "`POST /answer`"): the answer kept as one keyed record of `syntheses`, entity
// `answer`, type `synthesis`, key `answer:<sha256 of the question and the window>`, citing and
// derived from the records it cites; asking the same again writes its successor.
// The record's text is the answer; its content the question, the retrieval query, the gaps and
// the window (a syntheses schema that refuses that content refuses the save: 422).
import { activeCollection, type InstalledCatalog } from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { validationError } from "../platform/errors.js";
import { hashJson } from "../platform/hash.js";
import { ownRecord, writeRows } from "../records/index.js";
import type { Answered } from "./model.js";
import type { AnswerRequest } from "./request.js";

export const SYNTHESES = "syntheses";

function noSyntheses() {
  return validationError(`save needs an active "${SYNTHESES}" collection in the catalog`, [
    { path: "save", message: `the catalog has no active ${SYNTHESES} collection` },
  ]);
}

/** Refuses save: true up front (before any model call) when there is nowhere to save. */
export function checkSaveTarget(catalog: InstalledCatalog, request: AnswerRequest): void {
  if (request.save && !activeCollection(catalog.index, SYNTHESES)) throw noSyntheses();
}

export function synthesisKey(request: AnswerRequest): string {
  return `answer:${hashJson({ question: request.question, since: request.since ?? null, until: request.until ?? null })}`;
}

/** Writes the synthesis record; returns its id. */
export async function saveAnswer(
  db: Db,
  workspaceId: string,
  catalog: InstalledCatalog,
  input: { request: AnswerRequest; retrievalQuery: string; answered: Answered },
): Promise<string> {
  const { request, answered } = input;
  const content: Record<string, unknown> = {
    question: request.question,
    retrieval_query: input.retrievalQuery,
    gaps: answered.gaps,
  };
  if (request.since) content.since = request.since;
  if (request.until) content.until = request.until;
  const written = await writeRows(db, workspaceId, catalog, (current) => [
    ownRecord(
      current,
      {
        collection: SYNTHESES,
        entity: "answer",
        type: "synthesis",
        text: answered.answer,
        content,
        key: synthesisKey(request),
        parents: answered.citations,
        dedupeKey: null,
        contentPath: "content",
      },
      noSyntheses,
    ),
  ]);
  return written.inserted[0]?.id as string;
}
