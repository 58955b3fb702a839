import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/platform/errors.js";
import {
  authenticate,
  createWorkspace,
  deleteWorkspace,
  listKeys,
  listWorkspaces,
} from "../../src/workspaces/index.js";
import { createTestDb, type TestDb } from "../support/db.js";
import { waitFor } from "../support/wait.js";

describe("workspaces and keys", () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await createTestDb();
  });
  afterAll(() => testDb.close());

  it("each key selects exactly its own workspace", async () => {
    const a = await createWorkspace(testDb.db, "ws-a");
    const b = await createWorkspace(testDb.db, "ws-b");
    expect(a.api_key).not.toBe(b.api_key);
    expect((await authenticate(testDb.db, a.api_key))?.workspace).toEqual({ id: a.id, name: "ws-a" });
    expect((await authenticate(testDb.db, b.api_key))?.workspace).toEqual({ id: b.id, name: "ws-b" });
  });

  it("refuses unknown, malformed and altered keys", async () => {
    const a = await createWorkspace(testDb.db, "ws-c");
    const altered = a.api_key.slice(0, -1) + (a.api_key.endsWith("A") ? "B" : "A");
    expect(await authenticate(testDb.db, altered)).toBeUndefined();
    expect(await authenticate(testDb.db, "egk_nope")).toBeUndefined();
    expect(await authenticate(testDb.db, "")).toBeUndefined();
  });

  it("stores only the SHA-256 digest, never the key", async () => {
    const a = await createWorkspace(testDb.db, "ws-d");
    const { rows } = await testDb.db.query<Record<string, unknown>>(
      "SELECT * FROM workspaces w JOIN workspace_keys k ON k.workspace_id = w.id WHERE w.id = $1",
      [a.id],
    );
    expect(
      JSON.stringify(rows[0], (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v)),
    ).not.toContain(a.api_key);
    const { rows: digest } = await testDb.db.query<{ hex: string }>(
      "SELECT encode(key_digest, 'hex') AS hex FROM workspace_keys WHERE workspace_id = $1",
      [a.id],
    );
    const { createHash } = await import("node:crypto");
    expect(digest[0]?.hex).toBe(createHash("sha256").update(a.api_key).digest("hex"));
  });

  it("refuses a second workspace of the same name and invalid names", async () => {
    await createWorkspace(testDb.db, "twice");
    await expect(createWorkspace(testDb.db, "twice")).rejects.toThrow(/already exists/);
    await expect(createWorkspace(testDb.db, "has space")).rejects.toBeInstanceOf(AppError);
    await expect(createWorkspace(testDb.db, "")).rejects.toBeInstanceOf(AppError);
  });

  it("creates workspaces while other keys' use is being noted", async () => {
    // On Citus a note that locked workspace_keys and then, for its foreign key, workspaces met
    // a creation holding workspaces and wanting workspace_keys: a distributed deadlock.
    const keys = await Promise.all([...Array(8).keys()].map((i) => createWorkspace(testDb.db, `busy-${i}`)));
    const start = Date.now();
    for (let round = 1; round <= 15; round++) {
      // A minute apart each round, so every key's use is noted again.
      const now = start + round * 61_000;
      await Promise.all(keys.map((key) => authenticate(testDb.db, key.api_key, now)));
      await createWorkspace(testDb.db, `busy-new-${round}`);
    }
    const names = (await listWorkspaces(testDb.db)).map((w) => w.name);
    for (let round = 1; round <= 15; round++) expect(names).toContain(`busy-new-${round}`);
  });

  it("deleting a workspace removes its keys and the notes of their use", async () => {
    const gone = await createWorkspace(testDb.db, "gone");
    await authenticate(testDb.db, gone.api_key);
    const [key] = await listKeys(testDb.db, gone.id);
    await waitFor(async () => (await listKeys(testDb.db, gone.id))[0]?.last_used_at ?? undefined);
    await deleteWorkspace(testDb.db, gone.id);
    const left = await testDb.db.query(
      "SELECT 1 FROM workspace_keys WHERE id = $1 UNION ALL SELECT 1 FROM workspace_key_uses WHERE key_id = $1",
      [key?.id],
    );
    expect(left.rows).toEqual([]);
    expect(await authenticate(testDb.db, gone.api_key)).toBeUndefined();
  });

  it("lists names, ids and creation times without keys", async () => {
    const list = await listWorkspaces(testDb.db);
    expect(list.map((w) => w.name)).toContain("twice");
    for (const entry of list) expect(Object.keys(entry).sort()).toEqual(["created_at", "id", "name"]);
  });
});
