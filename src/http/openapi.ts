import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { SECURITY_HEADERS } from "./console.js";

/**
 * The reference page shares the console's origin, so it gets the console's headers (no framing,
 * no sniffing, no referrer). Swagger UI loads only its own files and sets styles through the DOM,
 * which CSP allows; its stylesheet draws icons from data: URLs, hence img-src.
 */
const DOCS_HEADERS = {
  ...SECURITY_HEADERS,
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
};

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
          adminToken: {
            type: "http",
            scheme: "bearer",
            description: "The operator's ADMIN_TOKEN (/admin/...)",
          },
        },
      },
      security: [{ workspaceKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(async (docs) => {
    // Every file of the page (its HTML, scripts, styles, /docs/json), refusals included.
    docs.addHook("onSend", async (_request, reply) => {
      reply.headers(DOCS_HEADERS);
    });
    // No validator badge (the default validatorUrl), which would load an outside image.
    await docs.register(swaggerUi, { routePrefix: "/docs", uiConfig: { deepLinking: true } });
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
