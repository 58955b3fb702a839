// A workspace with something of every kind an export carries, filled through the HTTP API, and
// what its clients observe of it (timelines, documents, histories, deltas, searches, renders,
// runs), so that a copy can be compared with its source.
import { createReadStream } from "node:fs";
import { appendFile, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { catalogDeps } from "../../src/deps.js";
import type { Db } from "../../src/platform/db/index.js";
import {
  type Counts,
  exportWorkspace,
  type ImportResult,
  importWorkspace,
} from "../../src/portability/index.js";
import { findWorkspaceByName } from "../../src/workspaces/index.js";
import { testConfig } from "../support/app.js";
import { ARTIFACTS, EXTRA_COLLECTIONS, VIEWS } from "../support/artifact-catalog.js";
import { MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";
import { derivationYaml, runJobs } from "../support/derivations.js";

/** Notes and facts are embedded (and notes scored) before they are ready; snapshots are not. */
const COLLECTIONS = `collections:
  - name: notes
    version: 1
    active: true
    mode: event
    schema:
      type: object
      properties:
        topic: { type: string }
        priority: { type: integer }
      additionalProperties: false
    fields:
      topic: { path: topic, type: string, filter: true, return: true, project: true }
      priority: { path: priority, type: integer, filter: true, sort: true, return: true }
    required_processors: [embedder, weight]
    search_profile: main
  - name: facts
    version: 1
    active: true
    mode: keyed
    schema: { type: object }
    required_processors: [embedder]
    search_profile: main
${EXTRA_COLLECTIONS}`;

const PROCESSORS = `processors:
  - name: embedder
    kind: embedding
    input: { collections: [notes, facts] }
    model: embed
  - name: weight
    kind: score
    input: { collections: [notes] }
    model: chat
    scale: [0, 1]
    default: 0
    prompt: Rate how much this note matters.
`;

export const PORTABILITY_FILES = minimalFiles({
  "collections/main.yaml": COLLECTIONS,
  "processors/main.yaml": PROCESSORS,
  "derivations/main.yaml": `derivations:\n${derivationYaml("digest")}${derivationYaml("watch", {
    trigger: "    trigger: { on: write, collections: [notes] }\n",
    emit: "{ from: watch, collection: facts, type: watch, keys: [watched] }",
  })}`,
  "views/main.yaml": VIEWS,
  "artifacts/main.yaml": ARTIFACTS,
  "packages/demo-pack.yaml": `name: demo-pack
version: 1.0.0
collections: [notes@1, facts@1, snapshots@1, learning_signals@1]
views: [top_notes@1]
artifacts: [brief@1, tiny@1, dormant@1]
processors: [embedder, weight, digest, watch]
triggers: [watch.default]
search_profiles: [main]
`,
});

/** What the fake model answers each derivation's task: rows citing all the evidence shown. */
const SCRIPT = {
  digest: { records: [{ key: "summary", text: "Pays late, renews in May", citations: "{{evidence.ids}}" }] },
  watch: { records: [{ key: "watched", text: "Notes were watched", citations: "{{evidence.ids}}" }] },
};

/** Each entity's words appear in no other entity's records (an entity export must hold none of them). */
export const ENTITIES = {
  acme: ["Invoice 12 was paid late", "Asked about the billing portal", "Renewal is due in May"],
  globex: ["Globex reported a pelican outage", "Globex wants a refund for the outage"],
  initech: ["Initech printer jammed again", "Initech asked about stapler upgrades"],
} as const;

export interface Client {
  app: FastifyInstance;
  headers: { authorization: string };
}

async function call(client: Client, method: "GET" | "POST", url: string, payload?: object) {
  const res = await client.app.inject({ method, url, headers: client.headers, payload });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json();
}

/**
 * Fills the workspace: records of three entities, a superseded and a retracted fact, a draft,
 * derivation runs (on request and on a write trigger), a backfill, a snapshot, an artifact use
 * with feedback, a cursor, access marks.
 */
export async function fillWorkspace(client: Client, db: Db, workspaceId: string): Promise<void> {
  await call(client, "POST", "/catalog", { package: MINIMAL_PACKAGE, files: PORTABILITY_FILES });
  const notes = Object.entries(ENTITIES).flatMap(([entity, texts]) =>
    texts.map((text, i) => ({
      collection: "notes",
      entity,
      type: "note",
      text,
      content: { topic: i % 2 === 0 ? "billing" : "support", priority: i + 1 },
      occurred_at: `2024-0${i + 1}-1${i}T08:30:00.123456Z`,
      dedupe_key: `${entity}-note-${i}`,
    })),
  );
  await call(client, "POST", "/records", { records: notes });
  await call(client, "POST", "/records", {
    records: [
      { collection: "facts", entity: "acme", type: "fact", key: "plan", text: "Acme is on the Pro plan" },
      {
        collection: "facts",
        entity: "globex",
        type: "fact",
        key: "plan",
        text: "Globex pays for Enterprise",
      },
      { collection: "facts", entity: "globex", type: "fact", key: "contact", text: "Globex contact is Hank" },
    ],
  });
  await call(client, "POST", "/records", {
    records: [
      { collection: "facts", entity: "acme", type: "fact", key: "plan", text: "Acme moved to the Team plan" },
      { collection: "facts", entity: "globex", type: "fact", key: "contact", tombstone: true },
      {
        collection: "facts",
        entity: "acme",
        type: "fact",
        key: "tier",
        text: "Acme may go enterprise",
        status: "draft",
      },
    ],
  });
  await runJobs(db, workspaceId, SCRIPT);
  await call(client, "POST", "/processors/digest/run", { entity: "acme" });
  await runJobs(db, workspaceId, SCRIPT);
  await call(client, "POST", "/backfill", { collection: "notes", version: 1, processor: "weight" });
  await runJobs(db, workspaceId, SCRIPT);
  await call(client, "POST", "/artifacts/brief/snapshot", { customer: "acme" });
  const use = await call(client, "POST", "/artifacts/brief/uses", { parameters: { customer: "acme" } });
  await call(client, "POST", `/artifact-uses/${use.id}/feedback`, {
    kind: "correction",
    source: "end_user",
    comment: "The brief should say Team plan",
  });
  await runJobs(db, workspaceId, SCRIPT);
  const delta = await call(client, "GET", "/delta?consumer=c1&limit=4");
  await call(client, "POST", "/cursor", {
    consumer: "c1",
    position: delta.next_cursor,
    scope_hash: delta.scope_hash,
  });
  const scoped = await call(client, "GET", "/delta?consumer=c2&entity=acme&limit=2");
  await call(client, "POST", "/cursor", {
    consumer: "c2",
    entity: "acme",
    position: scoped.next_cursor,
    scope_hash: scoped.scope_hash,
  });
  await call(client, "POST", "/search", { mode: "text", q: "invoice refund" });
}

const SEARCHES = [
  { mode: "text", q: "billing refund outage" },
  { mode: "text", q: "plan", scope: { entities: ["acme"] } },
  { mode: "vector", q: "invoice paid late" },
  { mode: "hybrid", q: "printer outage refund" },
  { mode: "recent", scope: { collections: ["notes"] } },
  {
    mode: "structured",
    scope: { collections: ["notes"] },
    order_by: [{ field: "priority", direction: "desc" }],
  },
];

/** Drops what the importing database numbers anew: a run's seq. */
function withoutSeq<T extends { seq?: unknown }>(run: T): Omit<T, "seq"> {
  const { seq: _seq, ...rest } = run;
  return rest;
}

/** What clients see of the workspace, comparable across databases. */
export async function observe(client: Client): Promise<Record<string, unknown>> {
  const get = (url: string) => call(client, "GET", url);
  const seen: Record<string, unknown> = {};
  const overview = await get("/workspace");
  seen.counts = {
    records: overview.counts.records,
    entities: overview.counts.entities,
    unready: overview.counts.unready,
  };
  for (const entity of Object.keys(ENTITIES)) {
    seen[`timeline ${entity}`] = await get(`/timeline?entity=${entity}&limit=100`);
    seen[`document ${entity}`] = await get(`/document?entity=${entity}`);
    seen[`drafts ${entity}`] = await get(`/document?entity=${entity}&status=draft`);
    seen[`history ${entity}`] = await get(`/document/history?entity=${entity}&collection=facts&key=plan`);
  }
  seen["delta c1"] = await get("/delta?consumer=c1&limit=100");
  seen["delta c2"] = await get("/delta?consumer=c2&entity=acme&limit=100");
  seen["delta all"] = await get("/delta?consumer=fresh&limit=100&include_system=true");
  for (const spec of SEARCHES) {
    const body = await call(client, "POST", "/search", { ...spec, include: ["text"] });
    seen[`search ${JSON.stringify(spec)}`] = body.hits.map((hit: { id: string; text: string }) => [
      hit.id,
      hit.text,
    ]);
  }
  seen.render = await call(client, "POST", "/artifacts/brief/render", { customer: "acme" });
  seen.snapshot = await get("/artifacts/brief?customer=acme");
  seen.view = (await call(client, "POST", "/views/top_notes/query", { who: "acme" })).hits;
  const runs = (await get("/runs?limit=100")).runs as { id: string; seq: number }[];
  seen.runs = await Promise.all(runs.map(async (run) => withoutSeq(await get(`/runs/${run.id}`))));
  seen.backfills = (await get("/backfill")).backfills;
  return seen;
}

/** Exports a workspace of the database into a file with the domain function. */
export async function exportToFile(
  db: Db,
  workspace: string,
  file: string,
  options: { entity?: string; withEmbeddings?: boolean } = {},
): Promise<Counts> {
  const found = await findWorkspaceByName(db, workspace);
  if (!found) throw new Error(`no workspace ${workspace}`);
  await writeFile(file, "");
  return exportWorkspace(db, { workspace: found, ...options, write: (chunk) => appendFile(file, chunk) });
}

/** Imports a file into a workspace of the database with the domain function. */
export function importFromFile(db: Db, workspace: string, file: string): Promise<ImportResult> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  return importWorkspace(db, catalogDeps(db, testConfig()), { workspace, lines });
}
