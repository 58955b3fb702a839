// Candidate rows read as one JSON array on PGlite (src/search/sql.ts candidateRows over
// src/platform/db/json-rows.ts) must come back exactly as the row protocol returns them: types,
// nulls, order, and the values JSON renders differently (timestamps of every era, NaN and
// infinite signals).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { candidateRows } from "../../src/search/sql.js";
import { createTestDb, type TestDb } from "../support/db.js";

const CANDIDATES = `
  SELECT * FROM (VALUES
    ('00000000-0000-0000-0000-000000000001'::uuid, 9007199254740::bigint, 'customer_events', 1, 'c-1', 'call',
     NULL::text, 'active', 0, NULL::uuid, 'one "quoted" \\ text', '{"a": [1, 2.5, null]}'::jsonb, '{"urgency": 0.1}'::jsonb,
     '{}'::jsonb, '2026-11-26 15:00:00.123456+00'::timestamptz, '0099-03-01 10:00:00+00'::timestamptz,
     NULL::timestamptz, 'NaN'::float8, 0.1::real),
    ('00000000-0000-0000-0000-000000000002'::uuid, 2::bigint, 'facts', 3, 'c-2', 'profile',
     'k', 'draft', 2, '00000000-0000-0000-0000-0000000000ff'::uuid, '', '{}'::jsonb, '{}'::jsonb,
     '{"x": {"y": true}}'::jsonb, '0500-01-01 00:00:00+00 BC'::timestamptz, '12345-01-01 00:00:00+00'::timestamptz,
     '2026-01-01 00:00:00.5+00'::timestamptz, NULL::float8, 'Infinity'::real)
  ) AS r(id, seq, collection, collection_version, entity, type, key, status, depth, run_id, text, content,
         scores, annotations, occurred_at, created_at, last_accessed, similarity, text_match)`;

describe("candidate rows", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(() => t.close());

  it("come back as the row protocol returns them, in the statement's order", async () => {
    for (const order of ["seq DESC", "seq ASC"]) {
      const sql = `${CANDIDATES} WHERE seq > $1 ORDER BY ${order}`;
      const expected = (await t.db.query(sql, [0])).rows;
      expect(expected).toHaveLength(2);
      expect(await candidateRows(t.db, { sql, values: [0] })).toEqual(expected);
    }
  });

  it("an empty result is an empty list", async () => {
    expect(await candidateRows(t.db, { sql: `${CANDIDATES} WHERE seq < $1`, values: [0] })).toEqual([]);
  });
});
