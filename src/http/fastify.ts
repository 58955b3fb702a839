// What every Engram HTTP listener shares (the API in app.ts, a worker's metrics port in
// metrics-app.ts): problem details for every refusal, replies written as plain JSON.stringify,
// and on close in-flight requests finished while idle keep-alive sockets close at once.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { handleClientError, handleError, handleFrameworkError } from "./problem.js";

export function engramFastify(
  options: Pick<FastifyServerOptions, "logger" | "loggerInstance" | "bodyLimit">,
): FastifyInstance {
  const app = Fastify({
    ...options,
    forceCloseConnections: "idle",
    return503OnClosing: true,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  });
  // Reply schemas document the contract (src/contract) and must never strip or coerce a reply.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler(handleError);
  return app;
}
