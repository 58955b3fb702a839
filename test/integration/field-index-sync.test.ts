// Tenants do not change shared structure at will (docs/operations.md, "Field indexes"): a catalog
// declares at most MAX_INDEXED_FIELDS indexed fields, refused at publish and dry run with the
// file and path; the indexes on records follow the active catalogs of every workspace (built after
// the install commits, dropped when none needs them, an invalid one dropped and built again), and
// structured search answers the same while an index is missing or invalid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcileFieldIndexes, syncFieldIndexes } from "../../src/search/field-indexes.js";
import { fieldValueSql } from "../../src/search/field-sql.js";
import { deleteWorkspace } from "../../src/workspaces/index.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { fieldsCollectionsYaml, minimalFiles } from "../support/catalog-files.js";

const MAX = 4;

/** A catalog whose notes@1 declares these fields (name → declaration), any content allowed. */
function notes(fields: Record<string, string>) {
  return {
    package: "demo-pack@1.0.0",
    files: minimalFiles({ "collections/main.yaml": fieldsCollectionsYaml("notes", fields) }),
  };
}

/** MAX indexed fields, one of them sorted, and a list field (never indexed, not counted). */
const AT_LIMIT = {
  a: "type: integer, sort: true",
  b: "type: string, filter: true",
  c: "type: number, filter: true",
  d: "type: string, filter: true, return: true",
  tags: "type: string_array, filter: true",
};

describe("field indexes follow the active catalogs", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<TestApp["workspace"]>>;
  let b: Awaited<ReturnType<TestApp["workspace"]>>;

  const indexes = async () =>
    (
      await t.db.query<{ name: string; def: string; valid: boolean }>(
        `SELECT c.relname AS name, pg_get_indexdef(c.oid) AS def, i.indisvalid AS valid
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = 'records'::regclass AND c.relname LIKE 'records\\_field\\_%' ORDER BY 1`,
      )
    ).rows;
  const onField = async (path: string) => (await indexes()).filter((row) => row.def.includes(`'{${path}}'`));

  async function publish(headers: { authorization: string }, body: object, query = "") {
    return t.app.inject({ method: "POST", url: `/catalog${query}`, headers, payload: body });
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { MAX_INDEXED_FIELDS: String(MAX) } });
    a = await t.workspace("fields-a");
    b = await t.workspace("fields-b");
  });
  afterAll(() => t.close());

  it("refuses a catalog past MAX_INDEXED_FIELDS at publish and dry run, naming the limit, and changes nothing", async () => {
    const ok = await publish(a.headers, notes(AT_LIMIT));
    expect(ok.statusCode, ok.body).toBe(200);
    const before = await indexes();
    // a sorted (2), b, c, d: five indexes for four fields; the list field has none.
    expect(before).toHaveLength(5);
    const over = notes({ ...AT_LIMIT, e: "type: integer, filter: true" });
    for (const query of ["", "?dry_run=true"]) {
      const res = await publish(a.headers, over, query);
      expect(res.statusCode, res.body).toBe(422);
      const problem = res.json();
      expect(problem).toMatchObject({
        code: "definition_invalid",
        file: "collections/main.yaml",
        path: "collections.0.fields.e",
      });
      expect(problem.detail).toContain("MAX_INDEXED_FIELDS");
      expect(problem.detail).toContain(String(MAX));
    }
    const current = await t.app.inject({ method: "GET", url: "/catalog", headers: a.headers });
    expect(current.json().catalog_hash).toBe(ok.json().catalog_hash);
    expect(await indexes()).toEqual(before);
  });

  it("keeps an index while any active catalog declares it and drops it when none does", async () => {
    await publish(a.headers, notes({ ...AT_LIMIT, d: "type: string, return: true" }));
    expect(await onField("d")).toEqual([]);
    await publish(a.headers, notes(AT_LIMIT));
    await publish(b.headers, notes({ d: "type: string, filter: true" }));
    expect(await onField("d")).toHaveLength(1);
    // A no longer declares d; B still does.
    await publish(a.headers, notes({ a: "type: integer, sort: true, filter: true" }));
    expect(await onField("d")).toHaveLength(1);
    expect(await onField("b")).toEqual([]);
    expect(await onField("a")).toHaveLength(2);
    // B's workspace goes: nothing needs d now, and the worker's reconcile drops it.
    await deleteWorkspace(t.db, b.id);
    expect(await reconcileFieldIndexes(t.db)).toMatchObject({ dropped: [expect.any(String)] });
    expect(await onField("d")).toEqual([]);
    expect(await onField("a")).toHaveLength(2);
    // Nothing changed since: the reconcile does nothing.
    expect(await reconcileFieldIndexes(t.db)).toBeUndefined();
  });

  it("answers structured search the same with the index missing, invalid, or rebuilt", async () => {
    const write = await t.app.inject({
      method: "POST",
      url: "/records",
      headers: a.headers,
      payload: {
        records: [3, 1, 2].map((n) => ({
          collection: "notes",
          entity: "e",
          type: "note",
          text: `n${n}`,
          content: { a: n },
        })),
      },
    });
    expect(write.statusCode, write.body).toBe(200);
    const search = async () => {
      const res = await t.app.inject({
        method: "POST",
        url: "/search",
        headers: a.headers,
        payload: {
          mode: "structured",
          include: ["text"],
          scope: { collections: ["notes"] },
          where: { a: { gte: 2 } },
          order_by: [{ field: "a", direction: "desc" }],
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().hits.map((hit: { text: string }) => hit.text);
    };
    // Search reads ready records: marked so here rather than by a worker.
    await t.db.query("UPDATE records SET ready = true WHERE workspace_id = $1", [a.id]);
    expect(await search()).toEqual(["n3", "n2"]);
    const names = (await onField("a")).map((row) => row.name);
    // A failed CREATE INDEX CONCURRENTLY leaves its index invalid: the planner ignores it.
    await t.db.query(
      "UPDATE pg_index SET indisvalid = false WHERE indexrelid = ANY(SELECT oid FROM pg_class WHERE relname = ANY($1))",
      [names],
    );
    expect(await search()).toEqual(["n3", "n2"]);
    const plan = await t.db.transaction(async (tx) => {
      await tx.exec("SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off");
      const { rows } = await tx.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT seq FROM records WHERE workspace_id = $1 AND collection = 'notes' AND collection_version = 1
         ORDER BY ${fieldValueSql("", { path: "a", type: "integer" })} DESC NULLS LAST, seq DESC LIMIT 5`,
        [a.id],
      );
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    // On Citus the flag was set on the coordinator's index only, not on the shards' own.
    if (!t.db.distributed) expect(plan).not.toMatch(/records_field_/);
    // The reconcile drops the invalid indexes and builds them again, valid.
    const done = await reconcileFieldIndexes(t.db);
    expect(done?.dropped.sort()).toEqual([...names].sort());
    expect(done?.built.sort()).toEqual([...names].sort());
    expect((await onField("a")).map((row) => row.valid)).toEqual([true, true]);
    expect(await search()).toEqual(["n3", "n2"]);
    // Missing altogether (as before a sync ran): the same answer.
    for (const name of names) await t.db.exec(`DROP INDEX ${name}`);
    expect(await search()).toEqual(["n3", "n2"]);
    expect((await syncFieldIndexes(t.db))?.built.sort()).toEqual([...names].sort());
  });

  it("publishes a sorted datetime field, which no index can serve, and sorts by it", async () => {
    // Its cast to timestamptz depends on the session's TimeZone: CREATE INDEX refuses it (in the
    // publish transaction, that was a 500), so none is ever tried.
    const ddl: string[] = [];
    const session = t.db.session.bind(t.db);
    t.db.session = ((fn) =>
      session((conn) =>
        fn({
          query: conn.query.bind(conn),
          exec: (script: string) => {
            ddl.push(script);
            return conn.exec(script);
          },
        }),
      )) as typeof t.db.session;
    let res: Awaited<ReturnType<typeof publish>>;
    try {
      res = await publish(
        a.headers,
        notes({
          a: "type: integer, sort: true, filter: true",
          at: "type: datetime, sort: true, filter: true",
        }),
      );
    } finally {
      t.db.session = session;
    }
    expect(res.statusCode, res.body).toBe(200);
    expect(ddl.filter((text) => text.includes('{"at"}'))).toEqual([]);
    expect(await onField("at")).toEqual([]);
    const search = await t.app.inject({
      method: "POST",
      url: "/search",
      headers: a.headers,
      payload: { mode: "structured", scope: { collections: ["notes"] }, order_by: [{ field: "at" }] },
    });
    expect(search.statusCode, search.body).toBe(200);
  });
});
