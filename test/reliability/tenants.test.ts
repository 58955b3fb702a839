// Cross-tenant matrix: for every endpoint and MCP tool that takes an id, a name or an entity, another
// workspace's key gets exactly what a random id, name or entity gets (404 and the same body,
// or the same empty answer), never the data and never a 403 that would confirm it exists.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";
import { runJobs } from "../support/derivations.js";
import { mcpClient, REVISIONS } from "../support/mcp.js";
import { enrichAll } from "../support/worker.js";

type Headers = { authorization: string };
interface Case {
  name: string;
  method: "GET" | "POST";
  /** The request with the owner's identifier, and with a random one. */
  url: (id: string) => string;
  body?: (id: string) => object;
}

describe("another workspace's ids, names and entities", () => {
  let t: TestApp;
  let owner: { id: string; headers: Headers };
  let same: Headers; // the same catalog, no data
  let other: Headers; // another catalog
  const ids: Record<string, string> = {};

  // The MCP endpoint is reached over real HTTP (the official client); the app listens once.
  let address: string | undefined;
  const listening = async () => {
    address ??= await t.app.listen({ port: 0, host: "127.0.0.1" });
    return address;
  };

  const send = (headers: Headers, method: "GET" | "POST", url: string, body?: object) =>
    t.app.inject({ method, url, headers, ...(body ? { payload: body } : {}) });

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.workspace("tenant-owner");
    same = (await t.workspace("tenant-same")).headers;
    other = (await t.workspace("tenant-other")).headers;
    await t.publishExample(owner.headers);
    await t.publishExample(same);
    const minimal = await send(other, "POST", "/catalog", {
      package: MINIMAL_PACKAGE,
      files: minimalFiles(),
    });
    expect(minimal.statusCode).toBe(200);

    const written = await send(owner.headers, "POST", "/records", {
      records: [
        {
          collection: "customer_events",
          entity: "secret-co",
          type: "ticket",
          text: "secret refund for secret-co",
          dedupe_key: "secret-d",
        },
        { collection: "customer_facts", entity: "secret-co", type: "fact", key: "plan", text: "secret plan" },
      ],
    });
    ids.record = written.json().inserted[0].id;
    await enrichAll(t.db, owner.id);
    const derive = await send(owner.headers, "POST", "/processors/customer_profile/run", {
      entity: "secret-co",
    });
    ids.job = derive.json().job_id;
    await runJobs(t.db, owner.id, {
      summarize: { records: [{ key: "situation", text: "secret situation", citations: "{{evidence.ids}}" }] },
    });
    ids.run = (await send(owner.headers, "GET", "/runs?entity=secret-co")).json().runs[0].id;
    ids.backfill = (
      await send(owner.headers, "POST", "/backfill", {
        collection: "customer_events",
        version: 1,
        processor: "urgency",
      })
    ).json().id;
    ids.use = (
      await send(owner.headers, "POST", "/artifacts/support_brief/uses", {
        parameters: { customer: "secret-co", question: "refund" },
      })
    ).json().id;
    for (const [name, id] of Object.entries(ids)) expect(id, name).toMatch(/^[0-9a-f-]{36}$/);
  });
  afterAll(() => t.close());

  /** B's answer for the owner's identifier equals B's answer for a random one (identifiers masked). */
  async function expectIndistinguishable(headers: Headers, c: Case, ownerId: string, randomId: string) {
    const theirs = await send(headers, c.method, c.url(ownerId), c.body?.(ownerId));
    const random = await send(headers, c.method, c.url(randomId), c.body?.(randomId));
    // The scope hash is a hash of the entity asked for, so it differs with it.
    const mask = (text: string, id: string) =>
      text
        .split(id)
        .join("<ID>")
        .replace(/"scope_hash":"[0-9a-f]+"/g, "");
    expect(theirs.statusCode, `${c.name}: ${theirs.body}`).toBe(random.statusCode);
    expect(theirs.statusCode, c.name).not.toBe(403);
    expect(mask(theirs.body, ownerId), c.name).toBe(mask(random.body, randomId));
    expect(mask(theirs.body, ownerId), c.name).not.toContain("secret");
  }

  it("ids: records, jobs, runs, backfills, artifact uses", async () => {
    const byId: [string, Case][] = [
      ["record", { name: "GET /records/{id}", method: "GET", url: (id) => `/records/${id}` }],
      ["job", { name: "GET /jobs/{id}", method: "GET", url: (id) => `/jobs/${id}` }],
      ["job", { name: "POST /jobs/{id}/retry", method: "POST", url: (id) => `/jobs/${id}/retry` }],
      ["run", { name: "GET /runs/{id}", method: "GET", url: (id) => `/runs/${id}` }],
      ["backfill", { name: "GET /backfill/{id}", method: "GET", url: (id) => `/backfill/${id}` }],
      [
        "backfill",
        { name: "POST /backfill/{id}/cancel", method: "POST", url: (id) => `/backfill/${id}/cancel` },
      ],
      ["use", { name: "GET /artifact-uses/{id}", method: "GET", url: (id) => `/artifact-uses/${id}` }],
      [
        "use",
        {
          name: "POST /artifact-uses/{id}/feedback",
          method: "POST",
          url: (id) => `/artifact-uses/${id}/feedback`,
          body: () => ({ kind: "thumbs_up", source: "end_user" }),
        },
      ],
      [
        "run",
        {
          name: "POST /promote",
          method: "POST",
          url: () => "/promote",
          body: (id) => ({ entity: "secret-co", source_run_id: id, artifact: "support_brief" }),
        },
      ],
      [
        "record",
        {
          name: "POST /records derived_from",
          method: "POST",
          url: () => "/records",
          body: (id) => ({
            records: [{ collection: "customer_events", entity: "x", type: "t", derived_from: [id] }],
          }),
        },
      ],
    ];
    for (const [kind, c] of byId) {
      for (const headers of [same, other])
        await expectIndistinguishable(headers, c, ids[kind] as string, randomUUID());
    }
  });

  it("entities: timeline, document, history, delta, search, views, renders, runs, context, answers", async () => {
    const entityCases: Case[] = [
      { name: "GET /timeline", method: "GET", url: (e) => `/timeline?entity=${e}` },
      { name: "GET /document", method: "GET", url: (e) => `/document?entity=${e}` },
      {
        name: "GET /document/history",
        method: "GET",
        url: (e) => `/document/history?entity=${e}&collection=customer_facts&key=plan`,
      },
      { name: "GET /delta", method: "GET", url: (e) => `/delta?consumer=c&entity=${e}` },
      { name: "GET /search", method: "GET", url: (e) => `/search?q=refund&entity=${e}` },
      {
        name: "POST /search",
        method: "POST",
        url: () => "/search",
        body: (e) => ({ mode: "text", q: "secret refund", scope: { entities: [e] } }),
      },
      {
        name: "POST /views/customer_history/query",
        method: "POST",
        url: () => "/views/customer_history/query",
        body: (e) => ({ customer: e, question: "refund" }),
      },
      {
        name: "POST /artifacts/support_brief/render",
        method: "POST",
        url: () => "/artifacts/support_brief/render",
        body: (e) => ({ customer: e, question: "refund" }),
      },
      { name: "GET /runs", method: "GET", url: (e) => `/runs?entity=${e}` },
      { name: "GET /context", method: "GET", url: (e) => `/context?entity=${e}&task=refund` },
      {
        name: "POST /answer",
        method: "POST",
        url: () => "/answer",
        body: (e) => ({ question: "which refund?", entities: [e] }),
      },
    ];
    for (const c of entityCases) {
      for (const headers of [same, other])
        await expectIndistinguishable(headers, c, "secret-co", "nobody-co");
    }
  });

  it("names: views, artifacts, derivations of another catalog are unknown names", async () => {
    const nameCases: Case[] = [
      { name: "POST /views/{name}/query", method: "POST", url: (n) => `/views/${n}/query`, body: () => ({}) },
      {
        name: "POST /artifacts/{name}/render",
        method: "POST",
        url: (n) => `/artifacts/${n}/render`,
        body: () => ({}),
      },
      { name: "GET /artifacts/{name}", method: "GET", url: (n) => `/artifacts/${n}` },
      {
        name: "POST /processors/{name}/run",
        method: "POST",
        url: (n) => `/processors/${n}/run`,
        body: () => ({ entity: "x" }),
      },
      {
        name: "POST /derivations/{name}/rebind",
        method: "POST",
        url: (n) => `/derivations/${n}/rebind`,
        body: () => ({ entity: "x", policy: "reset" }),
      },
    ];
    const names: Record<string, string> = {
      "POST /views/{name}/query": "customer_history",
      "POST /artifacts/{name}/render": "support_brief",
      "GET /artifacts/{name}": "support_brief",
      "POST /processors/{name}/run": "customer_profile",
      "POST /derivations/{name}/rebind": "customer_profile",
    };
    for (const c of nameCases)
      await expectIndistinguishable(other, c, names[c.name] as string, "no_such_name");
  });

  it("erasure: another workspace's entity or record ids erase what random ones do, nothing", async () => {
    // Each erasure answers fresh audit and job ids; everything else must be the same.
    const uuids = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const cases: Case[] = [
      { name: "POST /erase entity", method: "POST", url: () => "/erase", body: (e) => ({ entity: e }) },
      { name: "POST /erase records", method: "POST", url: () => "/erase", body: (id) => ({ records: [id] }) },
    ];
    const values: [string, string][] = [
      ["secret-co", "nobody-co"],
      [ids.record as string, randomUUID()],
    ];
    for (const [i, c] of cases.entries()) {
      const [ownerValue, randomValue] = values[i] as [string, string];
      for (const headers of [same, other]) {
        const theirs = await send(headers, c.method, c.url(ownerValue), c.body?.(ownerValue));
        const random = await send(headers, c.method, c.url(randomValue), c.body?.(randomValue));
        expect(theirs.statusCode, `${c.name}: ${theirs.body}`).toBe(random.statusCode);
        expect(theirs.body.replace(uuids, "<ID>"), c.name).toBe(random.body.replace(uuids, "<ID>"));
      }
    }
    expect((await send(owner.headers, "GET", `/records/${ids.record}`)).statusCode).toBe(200);
  });

  it("console reads: the workspace, its entities, jobs, cited-by and erase dry runs stay in their workspace", async () => {
    const json = async (headers: Headers, method: "GET" | "POST", url: string, body?: object) => {
      const res = await send(headers, method, url, body);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      return res.json();
    };
    // The owner's view, so that the checks below are not vacuous.
    const own = await json(owner.headers, "GET", "/workspace");
    expect(own.counts.records).toBeGreaterThan(0);
    const ownEntities = await json(owner.headers, "GET", "/entities?prefix=secret");
    expect(ownEntities.entities.map((e: { entity: string }) => e.entity)).toEqual(["secret-co"]);
    const ownJobs = (await json(owner.headers, "GET", "/jobs?limit=100")).jobs.map(
      (j: { id: string }) => j.id,
    );
    expect(ownJobs).toContain(ids.job);
    const cited = await json(owner.headers, "GET", `/records/${ids.record}/cited-by`);
    expect(cited.records.length).toBeGreaterThan(0);
    const ownDry = await json(owner.headers, "POST", "/erase?dry_run=true", { entity: "secret-co" });
    expect(ownDry.deleted).toBeGreaterThan(0);

    for (const headers of [same, other]) {
      const theirs = await json(headers, "GET", "/workspace");
      expect(theirs.id).not.toBe(owner.id);
      expect(JSON.stringify(theirs)).not.toContain("secret");
      const records = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND collection <> '_system'",
        [theirs.id],
      );
      expect(theirs.counts.records).toBe(records.rows[0]?.n);
      const jobs = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1",
        [theirs.id],
      );
      const counted = Object.values(theirs.counts.jobs as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(counted).toBe(jobs.rows[0]?.n);

      const entities = await send(headers, "GET", "/entities?limit=100");
      expect(entities.body).not.toContain("secret");
      await expectIndistinguishable(
        headers,
        { name: "GET /entities?prefix", method: "GET", url: (e) => `/entities?prefix=${e}` },
        "secret",
        "nobody",
      );
      await expectIndistinguishable(
        headers,
        { name: "GET /entities?after", method: "GET", url: (e) => `/entities?after=${e}&prefix=secret` },
        "secret-a",
        "secret-b",
      );

      const listed = (await json(headers, "GET", "/jobs?limit=100")).jobs.map((j: { id: string }) => j.id);
      expect(listed.filter((id: string) => ownJobs.includes(id))).toEqual([]);
      for (const filter of ["state=succeeded", "kind=derive", "kind=enrich", "state=cancelled"]) {
        const res = await send(headers, "GET", `/jobs?${filter}&limit=100`);
        expect(res.statusCode).toBe(200);
        expect(
          res.json().jobs.filter((j: { id: string }) => ownJobs.includes(j.id)),
          filter,
        ).toEqual([]);
      }

      await expectIndistinguishable(
        headers,
        { name: "GET /records/{id}/cited-by", method: "GET", url: (id) => `/records/${id}/cited-by` },
        ids.record as string,
        randomUUID(),
      );
      await expectIndistinguishable(
        headers,
        {
          name: "POST /erase?dry_run=true entity",
          method: "POST",
          url: () => "/erase?dry_run=true",
          body: (e) => ({ entity: e }),
        },
        "secret-co",
        "nobody-co",
      );
      await expectIndistinguishable(
        headers,
        {
          name: "POST /erase?dry_run=true records",
          method: "POST",
          url: () => "/erase?dry_run=true",
          body: (id) => ({ records: [id] }),
        },
        ids.record as string,
        randomUUID(),
      );
    }
    // The dry runs removed nothing of the owner's.
    expect((await json(owner.headers, "GET", "/workspace")).counts).toEqual(own.counts);
  });

  it("MCP tools: another workspace's key gets what a random id or entity gets", async () => {
    const url = await listening();
    const keyOf = (headers: Headers) => headers.authorization.replace(/^Bearer /, "");
    const calls: [string, (value: string) => Record<string, unknown>, string, string][] = [
      ["get_record", (id) => ({ id }), ids.record as string, randomUUID()],
      ["customer_history", (e) => ({ customer: e, question: "refund" }), "secret-co", "nobody-co"],
      ["support_brief", (e) => ({ customer: e, question: "refund" }), "secret-co", "nobody-co"],
      ["ask_memory", (e) => ({ question: "which refund?", entities: [e] }), "secret-co", "nobody-co"],
    ];
    for (const revision of REVISIONS) {
      // The same catalog: the same tools, none of the owner's data.
      const client = await mcpClient(url, keyOf(same), revision);
      try {
        for (const [tool, args, ownerValue, randomValue] of calls) {
          const theirs = JSON.stringify(await client.callTool({ name: tool, arguments: args(ownerValue) }));
          const random = JSON.stringify(await client.callTool({ name: tool, arguments: args(randomValue) }));
          const masked = theirs.split(ownerValue).join("<V>");
          expect(masked, `${revision} ${tool}`).toBe(random.split(randomValue).join("<V>"));
          expect(masked, `${revision} ${tool}`).not.toContain("secret");
        }
        // The owner's dedupe key means nothing in another workspace: a new record, not the owner's.
        const ingest = await client.callTool({
          name: "log_event",
          arguments: { entity: "x", type: "note", text: "mine", dedupe_key: "secret-d" },
        });
        expect(ingest.isError ?? false).toBe(false);
        // New on the first revision's call, its own duplicate on the second.
        expect(ingest.structuredContent).toMatchObject({ duplicate: revision !== REVISIONS[0] });
        expect((ingest.structuredContent as { id: string }).id).not.toBe(ids.record);
      } finally {
        await client.close();
      }
      // Another catalog: no such tools, whatever the arguments.
      const stranger = await mcpClient(url, keyOf(other), revision);
      try {
        for (const [tool, args, ownerValue, randomValue] of calls) {
          const failure = (value: string) =>
            stranger.callTool({ name: tool, arguments: args(value) }).then(
              (result) => JSON.stringify(result),
              (error: Error) => error.message,
            );
          const theirs = (await failure(ownerValue)).split(ownerValue).join("<V>");
          expect(theirs, `${revision} ${tool}`).toBe(
            (await failure(randomValue)).split(randomValue).join("<V>"),
          );
          expect(theirs).not.toContain("secret");
        }
      } finally {
        await stranger.close();
      }
    }
  });

  it("the owner still sees its own data (the matrix is not vacuous)", async () => {
    expect((await send(owner.headers, "GET", `/records/${ids.record}`)).statusCode).toBe(200);
    expect((await send(owner.headers, "GET", "/timeline?entity=secret-co")).body).toContain("secret refund");
    expect((await send(owner.headers, "GET", `/artifact-uses/${ids.use}`)).statusCode).toBe(200);
    const client = await mcpClient(
      await listening(),
      owner.headers.authorization.replace(/^Bearer /, ""),
      "2026-07-28",
    );
    try {
      const own = await client.callTool({ name: "get_record", arguments: { id: ids.record } });
      expect(own.isError ?? false).toBe(false);
      expect(JSON.stringify(own.structuredContent)).toContain("secret refund");
    } finally {
      await client.close();
    }
  });
});
