// The erasure figure (issue 17): one entity with ERASE_ENTITY_RECORDS customer events and a
// derived closure in other entities (level 1: keyed facts of their own entities, each resting on
// ten events; level 2: pages resting on ten facts each), all enriched, then one POST /erase of
// the entity, timed through the HTTP API. Search latency (p50 at one client) of a few modes is
// taken before and after on the same requests, to show erasure leaves search unaffected.
import { type Api, percentile } from "./clients.js";
import { startBenchWorker, waitUntilReady } from "./ingest.js";
import { type ModeName, requestMakers } from "./modes.js";
import { rng, seedOf } from "./random.js";
import type { System } from "./setup.js";
import { sentence, type Vocabulary } from "./vocabulary.js";

export const ERASE_ENTITY_RECORDS = 10_000;
const PER_PARENT = 10;
const BATCH = 500;
const SEARCH_MODES: ModeName[] = ["text", "vector", "hybrid", "hybrid@customer", "render"];
const SEARCH_REQUESTS = 40;

export interface EraseFigures {
  entity_records: number;
  derived_records: number;
  deleted: number;
  erase_ms: number;
  /** p50 ms at one client, same requests before and after. */
  search_p50_before: Partial<Record<ModeName, number>>;
  search_p50_after: Partial<Record<ModeName, number>>;
}

const round = (x: number) => Math.round(x * 10) / 10;

async function writeAll(api: Api, key: string, rows: object[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < rows.length; i += BATCH) {
    const res = await api.post<{ inserted: { id: string }[] }>(key, "/records", {
      records: rows.slice(i, i + BATCH),
    });
    ids.push(...res.inserted.map((row) => row.id));
  }
  return ids;
}

async function searchP50(
  api: Api,
  key: string,
  vocabulary: Vocabulary,
  records: number,
  seed: number,
): Promise<Partial<Record<ModeName, number>>> {
  const makers = requestMakers(vocabulary, records);
  const out: Partial<Record<ModeName, number>> = {};
  for (const mode of SEARCH_MODES) {
    const random = rng(seedOf(seed, `erase-${mode}`));
    const times: number[] = [];
    for (let i = 0; i < SEARCH_REQUESTS; i++) {
      const request = makers[mode](random);
      const started = performance.now();
      await api.post(key, request.path, request.body);
      times.push(performance.now() - started);
    }
    out[mode] = round(percentile(times.slice(5), 50));
  }
  return out;
}

export async function measureErase(
  system: System,
  api: Api,
  key: string,
  vocabulary: Vocabulary,
  options: { seed: number; records: number },
  log: (line: string) => void,
): Promise<EraseFigures> {
  const random = rng(seedOf(options.seed, "erase"));
  const entity = "erase-target";
  log(`erase: writing ${ERASE_ENTITY_RECORDS} events of one entity and their derived closure`);
  const events = await writeAll(
    api,
    key,
    Array.from({ length: ERASE_ENTITY_RECORDS }, () => ({
      collection: "customer_events",
      entity,
      type: "ticket",
      text: sentence(vocabulary, random, 12),
      content: { channel: "email", priority: 3 },
    })),
  );
  const facts = await writeAll(
    api,
    key,
    Array.from({ length: events.length / PER_PARENT }, (_, i) => ({
      collection: "customer_facts",
      entity: `erase-derived-${i}`,
      type: "summary",
      key: "summary",
      text: sentence(vocabulary, random, 10),
      content: { value: "derived" },
      derived_from: events.slice(i * PER_PARENT, (i + 1) * PER_PARENT),
    })),
  );
  const pages = await writeAll(
    api,
    key,
    Array.from({ length: facts.length / PER_PARENT }, (_, i) => ({
      collection: "pages",
      entity: "erase-wiki",
      type: "page",
      key: `erase-page-${i}`,
      text: sentence(vocabulary, random, 10),
      content: { title: `erase-page-${i}` },
      derived_from: facts.slice(i * PER_PARENT, (i + 1) * PER_PARENT),
    })),
  );
  const worker = await startBenchWorker(system);
  try {
    await waitUntilReady(system, log);
  } finally {
    await worker.stop();
  }
  await system.db.exec("VACUUM ANALYZE");
  const before = await searchP50(api, key, vocabulary, options.records, options.seed);
  const started = performance.now();
  const erased = await api.post<{ deleted: number }>(key, "/erase", { entity });
  const eraseMs = performance.now() - started;
  const derived = facts.length + pages.length;
  if (erased.deleted !== events.length + derived) {
    throw new Error(`erasure deleted ${erased.deleted} records, expected ${events.length + derived}`);
  }
  log(`  erased ${erased.deleted} records in ${round(eraseMs)} ms`);
  const after = await searchP50(api, key, vocabulary, options.records, options.seed);
  return {
    entity_records: events.length,
    derived_records: derived,
    deleted: erased.deleted,
    erase_ms: round(eraseMs),
    search_p50_before: before,
    search_p50_after: after,
  };
}
