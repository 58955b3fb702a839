// The HTTP shell: the workspace API as a Fastify app (buildApp), serving the routes of
// src/contract, and a worker's own metrics listener (buildMetricsApp).
export { type AppDeps, BODY_LIMIT_BYTES, buildApp } from "./app.js";
export { buildMetricsApp } from "./metrics-app.js";
