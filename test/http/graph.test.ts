import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/platform/errors.js";
import { queryView } from "../../src/search/service.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { enrichAll } from "../support/worker.js";

describe("graph views", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let workspaceId: string;
  const ids: Record<string, string> = {};
  const query = (view: string, body: object) =>
    t.app.inject({ method: "POST", url: `/views/${view}/query`, headers, payload: body });
  const ok = async (view: string, body: object) => {
    const res = await query(view, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const graph = (body: object) => ok("topic_graph", body);
  const write = async (name: string, row: object) => {
    const res = await t.app.inject({ method: "POST", url: "/records", headers, payload: { records: [row] } });
    expect(res.statusCode, res.body).toBe(200);
    ids[name] = res.json().inserted[0].id;
  };
  const link = (name: string, subject: string, predicate: string, object: string, extra: object = {}) =>
    write(name, {
      collection: "edges",
      entity: "kb",
      type: "link",
      key: `${subject}-${object}`,
      text: `${subject} ${predicate} ${object}`,
      content: { subject, object, predicate },
      ...extra,
    });
  const page = (name: string, key: string, extra: object = {}) =>
    write(name, {
      collection: "pages",
      entity: "wiki",
      type: "page",
      key,
      text: `Page ${key}`,
      content: { title: key },
      ...extra,
    });
  const pathsOf = (body: any) => body.paths.map((p: any) => p.nodes.join(">"));
  const sorted = (...names: string[]) => names.map((n) => ids[n] as string).sort();

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await t.workspace("graph");
    headers = ws.headers;
    workspaceId = ws.id;
    await t.publishExample(headers);

    // The main graph: a cycle a -> b -> c -> a, a shortcut a -> c, and b -> a (an event row).
    await link("ab", "a", "cites", "b");
    await link("bc", "b", "cites", "c");
    await link("ac", "a", "mentions", "c");
    await link("ca", "c", "cites", "a");
    await link("ba", "b", "mentions", "a", { key: undefined });
    // Visibility: x -> y is superseded by x -> z (same key), x -> w retracted, x -> v a draft,
    // x -> u not processed.
    await link("xy", "x", "cites", "y", { key: "x-out" });
    await link("xz", "x", "cites", "z", { key: "x-out" });
    await link("xw", "x", "cites", "w");
    await link("xwGone", "x", "cites", "w", { tombstone: true });
    await link("xv", "x", "cites", "v", { status: "draft" });
    await link("xu", "x", "cites", "u");
    await t.db.query("UPDATE records SET ready = false WHERE workspace_id = $1 AND id = $2", [
      workspaceId,
      ids.xu,
    ]);

    // Nodes: a, b, c are linked; orph1 (superseded once), orph2 and zeta/orph0 are not.
    for (const key of ["a", "b", "c", "orph2"]) await page(key, key);
    await page("orph1Old", "orph1");
    await page("orph1", "orph1", { text: "Page orph1, second version" });
    await page("orph0", "orph0", { entity: "zeta" });
    await page("gone", "gone");
    await page("goneTomb", "gone", { tombstone: true, text: "" });
    await page("draftPage", "drafted", { status: "draft" });
    // Automatically produced links: from a superseded source (not live) and a current one.
    await page("srcOld", "src");
    await page("src", "src", { text: "Page src, second version" });
    await page("src2", "src2");
    await link("auto1", "src", "cites", "a", { derived_from: [ids.srcOld] });
    await link("auto2", "src2", "cites", "a", { derived_from: [ids.src2] });
    await t.db.query("UPDATE records SET run_id = $3 WHERE workspace_id = $1 AND id = ANY($2::uuid[])", [
      workspaceId,
      [ids.auto1, ids.auto2],
      randomUUID(),
    ]);

    await enrichAll(t.db, workspaceId, { except: [ids.xu as string] });
    // Written after the worker stopped: never processed, so not a node yet.
    await page("late", "late");
  });
  afterAll(() => t.close());

  it("walks out from the seed with the defaults applied and the wrapper filled", async () => {
    const body = await graph({ seed: "a" });
    expect(body.view).toMatchObject({ name: "topic_graph", version: 1, hash: expect.any(String) });
    expect(body.parameters).toEqual({ seed: "a", predicates: [], direction: "out", depth: 1, limit: 20 });
    expect(body.paths).toEqual([
      { nodes: ["a", "b"], edge_ids: [ids.ab], depth: 1 },
      { nodes: ["a", "c"], edge_ids: [ids.ac], depth: 1 },
    ]);
    expect(body.nodes).toEqual(["a", "b", "c"]);
    expect(body.truncated).toBe(false);
    expect(body.hits).toEqual([
      {
        id: ids.ab,
        text: "a cites b",
        subject: "a",
        object: "b",
        predicate: "cites",
        content: { subject: "a", object: "b", predicate: "cites" },
      },
      {
        id: ids.ac,
        text: "a mentions c",
        subject: "a",
        object: "c",
        predicate: "mentions",
        content: { subject: "a", object: "c", predicate: "mentions" },
      },
    ]);
    expect(body.citations).toEqual(body.hits);
    expect(body.input_record_ids).toEqual([ids.ab, ids.ac]);
    expect(body.profiles).toEqual(["support"]);
    expect(body.backend).toEqual([
      {
        name: "support",
        layout: expect.stringMatching(/\/(hnsw|exact)$/),
        candidate_count: expect.any(Number),
      },
    ]);
    // The walk reads the links of its frontiers: at least those it returns.
    expect(body.backend[0].candidate_count).toBeGreaterThanOrEqual(body.hits.length);
  });

  it("follows links backwards (in) and either way (both)", async () => {
    const back = await graph({ seed: "a", direction: "in" });
    expect(back.paths).toEqual([
      { nodes: ["a", "b"], edge_ids: [ids.ba], depth: 1 },
      { nodes: ["a", "c"], edge_ids: [ids.ca], depth: 1 },
      // The live automatic link from src2 (its source page is current); src's is not live.
      { nodes: ["a", "src2"], edge_ids: [ids.auto2], depth: 1 },
    ]);
    const both = await graph({ seed: "a", direction: "both", predicates: ["cites", "mentions"] });
    const viaB = sorted("ab", "ba").map((id) => ({ nodes: ["a", "b"], edge_ids: [id], depth: 1 }));
    const viaC = sorted("ac", "ca").map((id) => ({ nodes: ["a", "c"], edge_ids: [id], depth: 1 }));
    expect(both.paths).toEqual([...viaB, ...viaC, { nodes: ["a", "src2"], edge_ids: [ids.auto2], depth: 1 }]);
    expect(both.citations.map((c: any) => c.id)).toEqual(both.paths.map((p: any) => p.edge_ids[0]));
  });

  it("goes deeper by distance, never revisiting a node on the path", async () => {
    const two = await graph({ seed: "a", depth: 2 });
    expect(pathsOf(two)).toEqual(["a>b", "a>c", "a>b>c"]);
    expect(two.paths[2]).toEqual({ nodes: ["a", "b", "c"], edge_ids: [ids.ab, ids.bc], depth: 2 });
    // Each used link once, in first-use order.
    expect(two.citations.map((c: any) => c.id)).toEqual([ids.ab, ids.ac, ids.bc]);
    // b -> c -> a -> b and b -> a -> ... stop at the first node already on the path.
    const cycle = await graph({ seed: "b", depth: 16 });
    expect(pathsOf(cycle)).toEqual(["b>a", "b>c", "b>a>c", "b>c>a"]);
    expect(cycle.nodes).toEqual(["a", "b", "c"]);
    expect(cycle.truncated).toBe(false);
    for (const path of cycle.paths) {
      expect(new Set(path.nodes).size).toBe(path.nodes.length);
      expect(path.edge_ids).toHaveLength(path.depth);
    }
  });

  it("filters by predicates", async () => {
    const body = await graph({ seed: "a", depth: 3, predicates: ["mentions"] });
    expect(pathsOf(body)).toEqual(["a>c"]);
    expect(body.hits.map((h: any) => h.id)).toEqual([ids.ac]);
    expect(body.parameters.predicates).toEqual(["mentions"]);
    const none = await graph({ seed: "a", depth: 3, predicates: ["unknown"] });
    expect(none).toMatchObject({ paths: [], hits: [], nodes: ["a"], truncated: false });
  });

  it("cuts to limit and says when more paths existed", async () => {
    const cut = await graph({ seed: "a", depth: 2, limit: 2 });
    expect(pathsOf(cut)).toEqual(["a>b", "a>c"]);
    expect(cut.truncated).toBe(true);
    expect(cut.nodes).toEqual(["a", "b", "c"]);
    const exact = await graph({ seed: "a", depth: 2, limit: 3 });
    expect(pathsOf(exact)).toEqual(["a>b", "a>c", "a>b>c"]);
    expect(exact.truncated).toBe(false);
    // Paths go by distance: when the first level alone holds more than limit paths, the links
    // of the next frontier are not read (a>b and a>c, not b's and c's 3 links as well).
    const first = await graph({ seed: "a", depth: 2, limit: 1 });
    expect(pathsOf(first)).toEqual(["a>b"]);
    expect(first.truncated).toBe(true);
    expect(first.backend[0].candidate_count).toBe(2);
    expect(exact.backend[0].candidate_count).toBe(5);
    const one = await graph({ seed: "b", depth: 16, limit: 3 });
    expect(pathsOf(one)).toEqual(["b>a", "b>c", "b>a>c"]);
    expect(one.truncated).toBe(true);
  });

  it("skips superseded, retracted, draft and unprocessed links", async () => {
    const body = await graph({ seed: "x", direction: "both", depth: 2 });
    expect(body.paths).toEqual([{ nodes: ["x", "z"], edge_ids: [ids.xz], depth: 1 }]);
    expect(body.nodes).toEqual(["x", "z"]);
    const unknown = await graph({ seed: "nowhere" });
    expect(unknown).toMatchObject({
      paths: [],
      hits: [],
      citations: [],
      nodes: ["nowhere"],
      truncated: false,
    });
  });

  it("trims the seed and refuses a blank or too long one, and bad parameters", async () => {
    const trimmed = await graph({ seed: "  a  " });
    expect(trimmed.parameters.seed).toBe("a");
    expect(trimmed.paths).toHaveLength(2);
    for (const body of [
      { seed: "   " },
      { seed: "" },
      { seed: "s".repeat(129) },
      {},
      { seed: "a", depth: 17 },
      { seed: "a", depth: 0 },
      { seed: "a", limit: 501 },
      { seed: "a", direction: "sideways" },
      { seed: "a", extra: 1 },
    ]) {
      const res = await query("topic_graph", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe("request_schema");
    }
    expect((await query("topic_graph", { seed: "s".repeat(128) })).statusCode).toBe(200);
  });

  it("lists orphan nodes by entity and key, with limit and truncated", async () => {
    const body = await ok("orphan_pages", {});
    expect(body.parameters).toEqual({ limit: 20 });
    expect(body.orphans.map((o: any) => `${o.entity}/${o.key}`)).toEqual([
      "wiki/orph1",
      "wiki/orph2",
      "wiki/src",
      "zeta/orph0",
    ]);
    expect(body.orphans[0]).toEqual({
      id: ids.orph1,
      entity: "wiki",
      key: "orph1",
      text: "Page orph1, second version",
      content: { title: "orph1" },
    });
    expect(body.hits).toEqual(body.orphans);
    expect(body.input_record_ids).toEqual([ids.orph1, ids.orph2, ids.src, ids.orph0]);
    expect(body.truncated).toBe(false);
    expect(body.view).toMatchObject({ name: "orphan_pages", version: 1 });
    expect(body.profiles).toEqual(["support"]);
    expect(body.backend).toEqual([
      {
        name: "support",
        layout: expect.stringMatching(/\/(hnsw|exact)$/),
        candidate_count: expect.any(Number),
      },
    ]);
    const cut = await ok("orphan_pages", { limit: 2 });
    expect(cut.orphans.map((o: any) => o.key)).toEqual(["orph1", "orph2"]);
    expect(cut.truncated).toBe(true);
    const exact = await ok("orphan_pages", { limit: 4 });
    expect(exact.truncated).toBe(false);
    for (const bad of [{ limit: 0 }, { limit: 501 }, { seed: "a" }]) {
      expect((await query("orphan_pages", bad)).statusCode).toBe(422);
    }
  });

  it("counts only processed nodes: an unready page is not an orphan candidate", async () => {
    const body = await ok("orphan_pages", {});
    expect(body.orphans.map((o: any) => o.key)).not.toContain("late");
    const { rows } = await t.db.query<{ ready: boolean }>(
      "SELECT ready FROM records WHERE workspace_id = $1 AND id = $2",
      [workspaceId, ids.late],
    );
    expect(rows[0]?.ready).toBe(false);
    // Superseded, retracted and draft pages are not nodes either.
    const keys = body.orphans.map((o: any) => o.id);
    for (const name of ["orph1Old", "gone", "goneTomb", "draftPage", "srcOld"])
      expect(keys).not.toContain(ids[name]);
  });

  it("applies the deployment ceiling GRAPH_LIMIT_MAX (queryView with graphLimitMax)", async () => {
    const deps = {
      db: t.db,
      models: () => {
        throw new Error("graph views call no model");
      },
      renderBudgetTokens: 16000,
      maxResponseBytes: 8388608,
      vectorExactRows: 10_000,
      maxQueryChars: 8192,
      graphLimitMax: 5,
    };
    const refusal = (view: string, args: object) =>
      queryView(deps, { workspaceId, name: view, args }).then(
        () => undefined,
        (error: unknown) => error,
      );
    const refused = (await refusal("topic_graph", { seed: "a", limit: 10 })) as AppError;
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: "request_schema",
      status: 422,
      extra: { errors: [{ path: "limit" }] },
    });
    expect(await refusal("orphan_pages", { limit: 6 })).toMatchObject({ code: "request_schema" });
    const fits = (await queryView(deps, {
      workspaceId,
      name: "topic_graph",
      args: { seed: "a", limit: 5 },
    })) as any;
    expect(fits.parameters.limit).toBe(5);
    // The default limit (20) is lowered to the ceiling rather than refused.
    const orphans = (await queryView(deps, { workspaceId, name: "orphan_pages", args: {} })) as any;
    expect(orphans.parameters).toEqual({ limit: 5 });
  });

  it("applies GRAPH_LIMIT_MAX from the environment through HTTP", async () => {
    const low = await createTestApp({ env: { GRAPH_LIMIT_MAX: "5" }, testDb: t.testDb });
    try {
      const ask = (view: string, body: object) =>
        low.app.inject({ method: "POST", url: `/views/${view}/query`, headers, payload: body });
      const refused = await ask("topic_graph", { seed: "a", limit: 10 });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toMatchObject({ code: "request_schema", errors: [{ path: "limit" }] });
      expect((await ask("orphan_pages", { limit: 6 })).statusCode).toBe(422);
      const fits = await ask("topic_graph", { seed: "a", limit: 5 });
      expect(fits.statusCode, fits.body).toBe(200);
      const orphans = await ask("orphan_pages", {});
      expect(orphans.statusCode, orphans.body).toBe(200);
      expect(orphans.json().parameters).toEqual({ limit: 5 });
    } finally {
      await low.app.close();
    }
  });
});
