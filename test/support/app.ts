import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { type Config, loadConfig } from "../../src/config/index.js";
import { type AppDeps, buildApp } from "../../src/http/index.js";
import type { Db } from "../../src/platform/db/index.js";
import { createWorkspace } from "../../src/workspaces/index.js";
import { createTestDb, type TestDb } from "./db.js";
import { type Embedder, withEmbedder } from "./embedders.js";
import { exampleRequest } from "./example-catalog.js";
import { stubEndpoints } from "./openai-stub.js";
import { checkResponseContract, contractViolations } from "./response-contract.js";

export function testConfig(env: Record<string, string> = {}): Config {
  // Rate limiting is off in tests unless a test turns it on; the model stubs started so far are
  // allowed endpoints (without a key variable) unless a test sets MODEL_ENDPOINTS itself.
  return loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    TEST_DATABASE: "true",
    RATE_LIMIT_MAX: "0",
    MODEL_ENDPOINTS: [...stubEndpoints].join(","),
    ...env,
  });
}

/** An operator token for apps that serve the operator API (createTestApp's env ADMIN_TOKEN). */
export const TEST_ADMIN_TOKEN = "test-operator-token-0123456789";

/**
 * The headers a request to this path carries: the operator's token on the operator API
 * (/admin/…), else the workspace's key. For sweeps over every route of /openapi.json.
 */
export function headersFor(path: string, workspace: { authorization: string }): { authorization: string } {
  return path.startsWith("/admin/") ? { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } : workspace;
}

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  testDb: TestDb;
  /** Creates a workspace and returns its bearer headers. */
  workspace(name: string): Promise<{ id: string; key: string; headers: { authorization: string } }>;
  /** POST /catalog with this body in the workspace of these headers; the response as it came. */
  publish(headers: { authorization: string }, payload: object): Promise<LightMyRequestResponse>;
  /** Publishes the example package (examples/catalog) into the workspace of these headers. */
  /** Publishes the example package (with another embedder than its own, when `embedder` says). */
  publishExample(headers: { authorization: string }, embedder?: Embedder): Promise<void>;
  /** Writes rows through POST /records (failing on anything but 200) and returns the inserted ids. */
  writeRecords(headers: { authorization: string }, records: object[]): Promise<string[]>;
  close(): Promise<void>;
}

export async function createTestApp(
  options: { env?: Record<string, string>; routes?: AppDeps["routes"]; testDb?: TestDb } = {},
): Promise<TestApp> {
  const testDb = options.testDb ?? (await createTestDb());
  const app = await buildApp({
    config: testConfig(options.env),
    db: testDb.db,
    version: "test",
    routes: options.routes,
    instrument: checkResponseContract,
  });
  const publish: TestApp["publish"] = (headers, payload) =>
    app.inject({ method: "POST", url: "/catalog", headers, payload });
  return {
    app,
    db: testDb.db,
    testDb,
    publish,
    async workspace(name) {
      const created = await createWorkspace(testDb.db, name);
      return {
        id: created.id,
        key: created.api_key,
        headers: { authorization: `Bearer ${created.api_key}` },
      };
    },
    async publishExample(headers, embedder) {
      const request = await exampleRequest();
      const res = await publish(headers, embedder ? withEmbedder(request, embedder) : request);
      if (res.statusCode !== 200) throw new Error(`publishing the example failed: ${res.body}`);
    },
    async writeRecords(headers, records) {
      const res = await app.inject({ method: "POST", url: "/records", headers, payload: { records } });
      if (res.statusCode !== 200) throw new Error(`writing records failed: ${res.body}`);
      return res.json().inserted.map((row: { id: string }) => row.id);
    },
    async close() {
      await app.close();
      await testDb.close();
      // Checked at close so that every test file using the app fails on a broken contract.
      if (contractViolations.length > 0) {
        throw new Error(
          `replies outside their documented schema:\n${contractViolations.splice(0).join("\n")}`,
        );
      }
    },
  };
}
