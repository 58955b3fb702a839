// POST /answer (docs/api.md "POST /answer"): validation, the evidence, the model's cited answer, and
// the optional saved synthesis. A refused request (4xx) calls no model and writes nothing; the
// only write is the synthesis, after the answer passed every check.
import { requireCatalog } from "../catalog/index.js";
import type { Models } from "../models/index.js";
import { anchorGraph, answerableCollections, type EvidenceDeps, gatherEvidence } from "./evidence.js";
import { ANSWER_WALL_MS, type Answered, AnswerSession, answerAlias, type ModelUsage } from "./model.js";
import { answerRequest } from "./request.js";
import { checkSaveTarget, saveAnswer } from "./save.js";

export interface AnswerDeps extends EvidenceDeps {
  /** The answer's wall-clock budget (at most, and by default, 150 s). */
  answerWallMs?: number;
}

export interface AnswerResult extends Answered {
  retrieval_query: string;
  input_ids: string[];
  model_usage: ModelUsage;
  saved_id: string | null;
}

/** The reply when the search and the walk found nothing: no model is asked (docs/api.md "POST /answer"). */
function nothingFound(question: string): Answered {
  return { answer: "Memory holds nothing on this question.", citations: [], gaps: [question] };
}

/**
 * Answers a question from memory. `options.save: false` overrides the body's save (MCP tools
 * answer without writing).
 */
export async function answer(
  deps: AnswerDeps,
  workspaceId: string,
  body: unknown,
  options: { save?: false } = {},
): Promise<AnswerResult> {
  const request = answerRequest(body, deps);
  if (options.save === false) request.save = false;
  const catalog = await requireCatalog(deps.db, workspaceId);
  const places = answerableCollections(catalog);
  checkSaveTarget(catalog, request);
  const graph = anchorGraph(catalog, request);
  const alias = answerAlias(catalog);
  const models: Models = deps.models(catalog);
  const session = new AnswerSession(models, alias, deps.answerWallMs ?? ANSWER_WALL_MS);
  const retrievalQuery = request.rewrite
    ? await session.rewrite(request.question, deps.maxQueryChars)
    : request.question;
  const evidence = await gatherEvidence(deps, workspaceId, catalog, {
    request,
    query: retrievalQuery,
    places,
    ...(graph ? { graph } : {}),
  });
  const answered =
    evidence.shown.length === 0
      ? nothingFound(request.question)
      : await session.answer(request.question, evidence);
  const savedId = request.save
    ? await saveAnswer(deps.db, workspaceId, catalog, { request, retrievalQuery, answered })
    : null;
  return {
    answer: answered.answer,
    retrieval_query: retrievalQuery,
    citations: answered.citations,
    gaps: answered.gaps,
    input_ids: evidence.shown,
    model_usage: session.usage,
    saved_id: savedId,
  };
}
