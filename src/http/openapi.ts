import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

/** OpenAPI 3.1 generated from the route schemas, at /openapi.json, and a reference page at /docs. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Engram",
        version,
        description:
          "Memory for AI agents: records, timelines, documents, search, views, answers, artifacts and MCP tools per isolated workspace. Every error is RFC 9457 problem details with a stable `code`.",
      },
      components: {
        securitySchemes: {
          workspaceKey: { type: "http", scheme: "bearer", description: "A workspace key (egk_...)" },
        },
      },
      security: [{ workspaceKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: "/docs", uiConfig: { deepLinking: true } });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
