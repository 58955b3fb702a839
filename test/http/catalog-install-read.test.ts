// The key lookup reads the workspace's active catalog install with the key, and the request's
// first catalog check takes it instead of a statement of its own (src/catalog/publishing/request-install.ts);
// a publish in between is seen by the next request, and by its own request after it. On Citus
// the key lookup reads the workspace alone (workspaces is a reference table there, which Citus
// joins with no correlated subquery), and the first check reads the install itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rememberInstall, runAsRequest } from "../../src/catalog/index.js";
import { takeInstall } from "../../src/catalog/publishing/request-install.js";
import { ACTIVE_INSTALL_ID } from "../../src/catalog/publishing/sql.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { createTestDb, onCitus } from "../support/db.js";
import { exampleRequest } from "../support/example-catalog.js";
import { recordingDb } from "../support/recording-db.js";

/** The active-install check on its own (not inside the key lookup). */
const isCatalogCheck = (sql: string) => sql === ACTIVE_INSTALL_ID;

describe("the request's catalog check rides on the key lookup", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const seen: string[] = [];

  beforeAll(async () => {
    const testDb = await createTestDb();
    // Every statement the app sends, through either entry point.
    const recording = recordingDb(testDb.db, seen);
    t = await createTestApp({ testDb: { ...testDb, db: recording } });
    headers = (await t.workspace("install-read")).headers;
    await t.publishExample(headers);
  });
  afterAll(() => t.close());

  const search = async (body: object) => {
    seen.length = 0;
    const res = await t.app.inject({ method: "POST", url: "/search", headers, payload: body });
    return { res, statements: [...seen] };
  };

  it("sends no catalog check of its own once the catalog is loaded", async () => {
    await search({ mode: "recent", k: 3 });
    const { res, statements } = await search({ mode: "recent", k: 3 });
    expect(res.statusCode, res.body).toBe(200);
    expect(statements.some((sql) => sql.includes("key_digest") && sql.includes("catalog_installs"))).toBe(
      !onCitus,
    );
    expect(statements.filter(isCatalogCheck)).toHaveLength(onCitus ? 1 : 0);
  });

  it("answers with a catalog published by an earlier request", async () => {
    const sentiment = {
      mode: "recent",
      k: 3,
      scope: { collections: ["customer_events"] },
      where: { sentiment: { eq: "calm" } },
    };
    expect((await search(sentiment)).res.statusCode).toBe(422); // no such field yet
    // A second version with a filterable field: the next request's key lookup reads its install.
    const request = await exampleRequest();
    const files = request.files as Record<string, string>;
    files["collections/support.yaml"] = (files["collections/support.yaml"] as string)
      .replace(
        "        tags: { type: array, items: { type: string } }\n",
        "        tags: { type: array, items: { type: string } }\n        sentiment: { type: string }\n",
      )
      .replace(
        "      tags: { path: tags, type: string_array, filter: true, return: true }\n",
        "      tags: { path: tags, type: string_array, filter: true, return: true }\n      sentiment: { path: sentiment, type: string, filter: true }\n",
      );
    files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
      "version: 1.0.0",
      "version: 1.1.0",
    );
    const published = await t.publish(headers, { package: "support@1.1.0", files });
    expect(published.statusCode, published.body).toBe(200);
    const { res, statements } = await search(sentiment);
    expect(res.statusCode, res.body).toBe(200);
    expect(statements.filter(isCatalogCheck)).toHaveLength(onCitus ? 1 : 0);
  });

  it("keeps the install for the request's first check only, on the database it was read on", async () => {
    const db = {};
    const tx = {};
    expect(takeInstall(db, "w1")).toBeUndefined(); // outside a request: nothing kept
    await new Promise<void>((done) =>
      runAsRequest(() => {
        rememberInstall(db, "w1", "install-1");
        expect(takeInstall(db, "w2")).toBeUndefined(); // another workspace: read it, and it is gone
        expect(takeInstall(db, "w1")).toBeUndefined();
        rememberInstall(db, "w1", "install-1");
        expect(takeInstall(tx, "w1")).toBeUndefined(); // a transaction reads its own
        expect(takeInstall(db, "w1")).toBeUndefined();
        rememberInstall(db, "w1", null);
        expect(takeInstall(db, "w1")).toBeNull(); // no catalog is an answer too
        rememberInstall(db, "w1", "install-1");
        setImmediate(() => {
          expect(takeInstall(db, "w1")).toBe("install-1"); // work the request starts sees it
          expect(takeInstall(db, "w1")).toBeUndefined(); // once
          done();
        });
      }),
    );
  });
});
