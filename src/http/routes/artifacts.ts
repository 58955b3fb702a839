// The artifact routes (src/contract/artifacts.ts): render, snapshot, uses and their feedback.
import type { FastifyInstance } from "fastify";
import {
  type ArtifactDeps,
  createUse,
  currentSnapshot,
  type Feedback,
  getUse,
  renderArtifact,
  snapshotArtifact,
  submitFeedback,
} from "../../artifacts/index.js";
import {
  CREATE_USE,
  CURRENT_SNAPSHOT,
  type FeedbackLimits,
  GET_USE,
  RENDER_ARTIFACT,
  SNAPSHOT_ARTIFACT,
  submitFeedbackRoute,
} from "../../contract/index.js";
import { contractRoute } from "../contract-route.js";

export function artifactRoutes(
  app: FastifyInstance,
  deps: ArtifactDeps & { artifactUseRetentionDays: number } & FeedbackLimits,
): void {
  app.route<{ Params: { name: string }; Body: unknown }>({
    ...contractRoute(RENDER_ARTIFACT),
    config: { reads: true },
    handler: async (request) => renderArtifact(deps, request.workspace.id, request.params.name, request.body),
  });
  app.route<{ Params: { name: string }; Body: unknown }>({
    ...contractRoute(SNAPSHOT_ARTIFACT),
    handler: async (request) =>
      snapshotArtifact(deps, request.workspace.id, request.params.name, request.body),
  });
  app.route<{ Params: { name: string }; Querystring: Record<string, unknown> }>({
    ...contractRoute(CURRENT_SNAPSHOT),
    handler: async (request) =>
      currentSnapshot(deps, request.workspace.id, request.params.name, request.query),
  });
  app.route<{ Params: { name: string }; Body: { parameters?: Record<string, unknown>; snapshot?: boolean } }>(
    {
      ...contractRoute(CREATE_USE),
      handler: async (request) =>
        createUse(deps, request.workspace.id, request.params.name, request.body ?? {}),
    },
  );
  app.route<{ Params: { id: string } }>({
    ...contractRoute(GET_USE),
    handler: async (request) => getUse(deps.db, request.workspace.id, request.params.id),
  });
  app.route<{ Params: { id: string }; Body: Feedback }>({
    ...contractRoute(submitFeedbackRoute(deps)),
    handler: async (request) =>
      submitFeedback(deps.db, request.workspace.id, request.params.id, request.body),
  });
}
