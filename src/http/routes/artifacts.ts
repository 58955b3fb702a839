import type { FastifyInstance } from "fastify";
import {
  type ArtifactDeps,
  createUse,
  currentSnapshot,
  FEEDBACK_KINDS,
  FEEDBACK_SOURCES,
  type Feedback,
  getUse,
  renderArtifact,
  snapshotArtifact,
  submitFeedback,
} from "../../artifacts/index.js";
import type { Config } from "../../config/index.js";

const nameParams = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;
const idParams = { type: "object", properties: { id: { type: "string" } }, required: ["id"] } as const;
const parameters = {
  type: "object",
  additionalProperties: true,
  description: "the artifact's parameters at top level; GET /artifacts lists each artifact's parameters",
} as const;

type Limits = Pick<Config, "maxFeedbackCommentChars" | "maxFeedbackEvidenceChars">;

function feedbackSchema(limits: Limits) {
  const text = (maxLength: number) => ({ type: "string", maxLength }) as const;
  return {
    type: "object",
    properties: {
      kind: { enum: FEEDBACK_KINDS },
      source: { enum: FEEDBACK_SOURCES },
      score: { type: "number", minimum: 0, maximum: 1 },
      label: text(256),
      comment: text(limits.maxFeedbackCommentChars),
      expected: text(limits.maxFeedbackEvidenceChars),
      actual_excerpt: text(limits.maxFeedbackEvidenceChars),
      dedupe_key: { type: "string", minLength: 1, maxLength: 200, pattern: "\\S" },
      execution_refs: { type: "array", maxItems: 8, items: text(256) },
    },
    required: ["kind", "source"],
    additionalProperties: false,
  } as const;
}

export function artifactRoutes(
  app: FastifyInstance,
  deps: ArtifactDeps & { artifactUseRetentionDays: number } & Limits,
): void {
  const tags = ["artifacts"];
  app.post<{ Params: { name: string }; Body: unknown }>(
    "/artifacts/:name/render",
    {
      config: { reads: true },
      schema: {
        summary: "Render the active version of an artifact: content and manifest",
        tags,
        params: nameParams,
        body: parameters,
      },
    },
    async (request) => renderArtifact(deps, request.workspace.id, request.params.name, request.body),
  );
  app.post<{ Params: { name: string }; Body: unknown }>(
    "/artifacts/:name/snapshot",
    {
      schema: {
        summary: "Render and persist as a keyed record of the artifact's snapshot target",
        tags,
        params: nameParams,
        body: parameters,
      },
    },
    async (request) => snapshotArtifact(deps, request.workspace.id, request.params.name, request.body),
  );
  app.get<{ Params: { name: string }; Querystring: Record<string, unknown> }>(
    "/artifacts/:name",
    {
      schema: {
        summary: "The current snapshot of an artifact for the parameters given as query parameters",
        tags,
        description:
          "The artifact's parameters travel as query parameters (names and types from its declaration, GET /artifacts); they are checked by the artifact, so no query schema is published here.",
        params: nameParams,
      },
    },
    async (request) => currentSnapshot(deps, request.workspace.id, request.params.name, request.query),
  );
  app.post<{ Params: { name: string }; Body: { parameters?: Record<string, unknown>; snapshot?: boolean } }>(
    "/artifacts/:name/uses",
    {
      schema: {
        summary: "Render (and optionally snapshot) an artifact and return a use handle for feedback",
        tags,
        params: nameParams,
        body: {
          type: "object",
          properties: { parameters, snapshot: { type: "boolean", default: false } },
          additionalProperties: false,
        },
      },
    },
    async (request) => createUse(deps, request.workspace.id, request.params.name, request.body ?? {}),
  );
  app.get<{ Params: { id: string } }>(
    "/artifact-uses/:id",
    { schema: { summary: "An artifact use's metadata (never the render)", tags, params: idParams } },
    async (request) => getUse(deps.db, request.workspace.id, request.params.id),
  );
  app.post<{ Params: { id: string }; Body: Feedback }>(
    "/artifact-uses/:id/feedback",
    {
      schema: {
        summary: "Report how an artifact use went: one record in learning_signals",
        tags,
        params: idParams,
        body: feedbackSchema(deps),
      },
    },
    async (request) => submitFeedback(deps.db, request.workspace.id, request.params.id, request.body),
  );
}
