// npm run bench:hybrid: which hybrid formula ranks labelled sets of our own best
// (bench/data/*-labelled.json): support notes searched across the workspace, with lexical
// queries (the record's own words), paraphrases (no content word shared) and mixed ones; and
// long chats between friends, each question searched in its own conversation. Every formula
// ranks the hybrid candidates of the example catalog (embedding with the local word vectors)
// through POST /search's `rank`; recall@5, recall@10 and MRR@10 per set and query kind say which
// weights the shipped catalogs use (docs/catalog.md, "conf/rank.yaml").
//   npm run bench:hybrid -- [--embedder local|fake] [--json FILE]
// Uses DATABASE_URL when set (a scratch database, dropped afterwards), else in-memory PGlite.
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import type { Embedder } from "../test/support/embedders.js";
import { Api } from "./clients.js";
import { drainBacklog } from "./ingest.js";
import { createBenchWorkspace, openBenchDb, startSystem } from "./setup.js";

interface LabelledSet {
  records: { id: string; entity: string; speaker?: string; text: string }[];
  /** A query with an entity is searched within it (a conversation); else across the workspace. */
  queries: { id: string; q: string; kind?: string; entity?: string; relevant: string[] }[];
}

const SETS = ["support", "conversation"] as const;
type Rank = unknown[];
const K = 10;
const TEXT_WEIGHTS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
/** Sources name their collections (docs/api.md, "Combined searches"). */
const EVENTS = ["customer_events"];
const similarity: Rank = ["normalize", ["similarity"]];
/** The decay every default formula adds (docs/api.md, "Rank expressions"); measured sets hold it constant. */
const DECAY: Rank = ["decay", ["age_hours", "last_accessed"], { midpoint: 24, exponent: 1 }];

/** w · text + (1 − w) · normalize(similarity), plus the defaults' decay. */
function weighted(text: Rank, textWeight: number): Rank {
  const vectorWeight = Math.round((1 - textWeight) * 100) / 100;
  return ["sum", [["product", textWeight, text], ["product", vectorWeight, similarity], DECAY]];
}

/** What each formula sends besides q, k and scope: a mode and rank, or sources fused by RRF. */
function formulas(): Map<string, (scope: object) => Record<string, unknown>> {
  const out = new Map<string, (scope: object) => Record<string, unknown>>([
    ["text alone", () => ({ mode: "text" })],
    ["vector alone", () => ({ mode: "vector" })],
    ["max (spec default)", () => ({ mode: "hybrid" })],
    [
      "rrf(text, vector)",
      (scope) => ({
        sources: ["text", "vector"].map((mode) => ({ name: mode, mode, scope, k: 100 })),
        fuse: { kind: "rrf" },
      }),
    ],
  ]);
  for (const w of TEXT_WEIGHTS) {
    const v = Math.round((1 - w) * 10) / 10;
    const normalized = weighted(["normalize", ["text_match"]], w);
    const raw = weighted(["text_match"], w);
    out.set(`${w}·norm(text) + ${v}·norm(sim)`, () => ({ mode: "hybrid", rank: normalized }));
    out.set(`${w}·text + ${v}·norm(sim)`, () => ({ mode: "hybrid", rank: raw }));
  }
  return out;
}

interface Figures {
  recall_at_5: number;
  recall_at_10: number;
  mrr_at_10: number;
  queries: number;
}

type Ranking = { ranked: string[]; relevant: string[] };

function figures(rankings: Ranking[]): Figures {
  const recallAt = (n: number) =>
    rankings.reduce(
      (sum, r) =>
        sum + r.relevant.filter((id) => r.ranked.slice(0, n).includes(id)).length / r.relevant.length,
      0,
    ) / rankings.length;
  const mrr =
    rankings.reduce((sum, r) => {
      const first = r.ranked.findIndex((id) => r.relevant.includes(id));
      return sum + (first < 0 ? 0 : 1 / (first + 1));
    }, 0) / rankings.length;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    recall_at_5: round(recallAt(5)),
    recall_at_10: round(recallAt(K)),
    mrr_at_10: round(mrr),
    queries: rankings.length,
  };
}

/** Writes a set's records into a workspace; returns each stored id's label. */
async function writeSet(api: Api, key: string, set: LabelledSet): Promise<Map<string, string>> {
  const labelOf = new Map<string, string>();
  for (let i = 0; i < set.records.length; i += 100) {
    const batch = set.records.slice(i, i + 100);
    const written = await api.post<{ inserted: { index: number; id: string }[] }>(key, "/records", {
      records: batch.map((r) => ({
        collection: "customer_events",
        entity: r.entity,
        type: "note",
        text: r.speaker ? `${r.speaker}: ${r.text}` : r.text,
      })),
    });
    for (const row of written.inserted) labelOf.set(row.id, batch[row.index]?.id ?? "");
  }
  return labelOf;
}

/** Ranks a set's queries by every formula: figures by formula, then by query kind. */
async function rankSet(
  api: Api,
  key: string,
  set: LabelledSet,
  labelOf: Map<string, string>,
): Promise<Record<string, Record<string, Figures>>> {
  const results: Record<string, Record<string, Figures>> = {};
  for (const [name, request] of formulas()) {
    const rankings = new Map<string, Ranking[]>();
    for (const query of set.queries) {
      const scope = { collections: EVENTS, ...(query.entity ? { entities: [query.entity] } : {}) };
      const body = { q: query.q, k: K, ...request(scope) };
      const reply = await api.post<{ hits: { id: string }[] }>(
        key,
        "/search",
        "sources" in body ? body : { ...body, scope },
      );
      const ranked = reply.hits.map((hit) => labelOf.get(hit.id) ?? hit.id);
      for (const kind of new Set(["all", query.kind ?? "all"])) {
        rankings.set(kind, [...(rankings.get(kind) ?? []), { ranked, relevant: query.relevant }]);
      }
    }
    results[name] = Object.fromEntries([...rankings].map(([kind, list]) => [kind, figures(list)]));
  }
  return results;
}

function printTable(set: string, results: Record<string, Record<string, Figures>>): void {
  const kinds = Object.keys(Object.values(results)[0] ?? {});
  console.log(`\n${set}\n\n| formula | ${kinds.map((k) => `${k} R@5 / R@10 / MRR`).join(" | ")} |`);
  console.log(`|---|${kinds.map(() => "---|").join("")}`);
  for (const [name, byKind] of Object.entries(results)) {
    const cells = kinds.map((k) => {
      const f = byKind[k];
      return f
        ? `${f.recall_at_5.toFixed(3)} / ${f.recall_at_10.toFixed(3)} / ${f.mrr_at_10.toFixed(3)}`
        : "";
    });
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { embedder: { type: "string", default: "local" }, json: { type: "string" } },
  });
  const embedder = values.embedder as Embedder;
  if (embedder !== "local" && embedder !== "fake") throw new Error("--embedder takes local or fake");
  const bench = await openBenchDb();
  const system = await startSystem(bench.db);
  const api = new Api(system.url, 4);
  const out: Record<string, unknown> = {};
  try {
    const workspaces = [];
    for (const name of SETS) {
      const set = JSON.parse(
        await readFile(new URL(`./data/${name}-labelled.json`, import.meta.url), "utf8"),
      ) as LabelledSet;
      const ws = await createBenchWorkspace(bench.db, api, name, embedder);
      workspaces.push({ name, set, key: ws.key, labelOf: await writeSet(api, ws.key, set) });
    }
    const { worker } = await drainBacklog(system, console.log);
    for (const { name, set, key, labelOf } of workspaces) out[name] = await rankSet(api, key, set, labelOf);
    await worker.stop();
    for (const [name, results] of Object.entries(out))
      printTable(name, results as Record<string, Record<string, Figures>>);
    if (values.json)
      await writeFile(values.json, `${JSON.stringify({ embedder, k: K, sets: out }, null, 2)}\n`);
  } finally {
    await api.close();
    await system.close();
    await bench.close();
  }
}

await main();
