// Flags of `npm run bench`. Every figure is reproducible from these and the seed.
import { parseArgs } from "node:util";
import { EMBEDDERS, type Embedder } from "../test/support/embedders.js";
import { MODES, type ModeName } from "./modes.js";

export interface Options {
  /** Corpus sizes of the main workspace; each is measured in a fresh database. */
  records: number[];
  seed: number;
  quick: boolean;
  /** Concurrent writers for the ingest figures. */
  clients: number;
  /** Per search configuration (mode × client count): at most this many requests... */
  requests: number;
  /** ...or this many seconds, whichever comes first. */
  seconds: number;
  /** Rows written one per request for the batch-of-1 figure (a sample, not the whole corpus). */
  singleRows: number;
  /** Workspaces beside the main one (tenants sharing its indexes), and each one's rows as a share of the main workspace's. */
  noiseWorkspaces: number;
  noiseShare: number;
  /** Distinct words of the corpus vocabulary and their Zipf exponent. */
  words: number;
  zipf: number;
  modes: ModeName[];
  /** The erasure figure (bench/erase.ts), chosen with the mode name `erase`. */
  erase: boolean;
  /** Keep each size's scratch database (server: its name; PGlite: a dump file) to study its plans. */
  keep: boolean;
  /** The example package's embedder: fake word hashing, or the local word vectors. */
  embedder: Embedder;
  /** A database a run kept (--keep) to measure again, searches only: a server database's name or a PGlite dump. */
  reuse?: string;
  /** How the base corpus is written: all through the API, or bulk-loaded in process (bench/bulk-load.ts). */
  load: (typeof LOADS)[number];
}

const ERASE_MODE = "erase";
const LOADS = ["api", "bulk"] as const;

const HELP = `npm run bench -- [flags]
  --records 10000,100000  corpus sizes (main workspace rows); each in a fresh database
  --seed 42               fixes corpus and queries
  --quick                 a fast check: --records 2000, 30 requests or 1.5 s per configuration
  --clients 4             concurrent writers for the ingest figures
  --requests 200          per search configuration, at most this many requests ...
  --seconds 15            ... or this many seconds, whichever first
  --single 2000           rows written one per request (batch-of-1 figure)
  --noise-workspaces 2    workspaces beside the main one, sharing its indexes
  --noise 0.2             rows of each noise workspace, share of the main one
                          (10 workspaces of equal size: --noise-workspaces 9 --noise 1)
  --words 5000            vocabulary size (Zipf-distributed)
  --embedder local        the example package's embedder: local (word vectors, docs/catalog.md
                          "The local embedder", as it ships) or fake (word hashing)
  --load api              api: every row through POST /records, the worker draining them;
                          bulk: the noise workspaces and the main corpus but its last 20,000
                          rows written in process and enriched at once (bench/bulk-load.ts),
                          then those rows and the samples through the API as with api
  --reuse NAME            measure a database a --keep run left (the server database's name, or
                          the PGlite dump file): no writes, searches and recall only; one
                          --records size, the one it was built with, and no erase
  --keep                  keep each size's scratch database and print where: its name on
                          the server, a data directory dump (loadDataDir) on PGlite
  --modes text,vector,... modes to measure (default all: ${MODES.join(", ")}, erase)
                          erase: one entity of 10k records and its derived closure erased,
                          search p50 before and after
Uses DATABASE_URL when set (a scratch database is created and dropped), else in-memory PGlite.`;

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${value}`);
  return n;
}

function seedOption(value: string | undefined): number {
  if (value === undefined) return 42;
  if (!/^\d+$/.test(value)) throw new Error(`--seed must be a whole number, got ${value}`);
  return Number(value) >>> 0;
}

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      records: { type: "string" },
      seed: { type: "string" },
      quick: { type: "boolean", default: false },
      clients: { type: "string" },
      requests: { type: "string" },
      seconds: { type: "string" },
      single: { type: "string" },
      noise: { type: "string" },
      "noise-workspaces": { type: "string" },
      words: { type: "string" },
      modes: { type: "string" },
      keep: { type: "boolean", default: false },
      embedder: { type: "string", default: "local" },
      load: { type: "string", default: "api" },
      reuse: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const quick = values.quick ?? false;
  const records = (values.records ?? (quick ? "2000" : "10000,100000"))
    .split(",")
    .map((s) => Math.trunc(positive("records", s.trim(), 0)));
  const chosen = (values.modes?.split(",") ?? [...MODES, ERASE_MODE]).map((m) => m.trim());
  const modes = chosen.filter((m) => m !== ERASE_MODE);
  for (const mode of modes) {
    if (!(MODES as readonly string[]).includes(mode))
      throw new Error(`unknown mode ${mode}; known: ${MODES.join(", ")}`);
  }
  const embedder = values.embedder as Embedder;
  if (!EMBEDDERS.includes(embedder)) throw new Error(`--embedder must be one of ${EMBEDDERS.join(", ")}`);
  const load = values.load as (typeof LOADS)[number];
  if (!LOADS.includes(load)) throw new Error(`--load must be one of ${LOADS.join(", ")}`);
  if (values.reuse !== undefined && (records.length !== 1 || chosen.includes(ERASE_MODE)))
    throw new Error(
      "--reuse measures one size, the one its database was built with, and not erase (it writes)",
    );
  const noiseShare = values.noise === undefined ? 0.2 : Number(values.noise);
  const noiseWorkspaces = values["noise-workspaces"] === undefined ? 2 : Number(values["noise-workspaces"]);
  if (!(Number.isInteger(noiseWorkspaces) && noiseWorkspaces >= 0 && noiseWorkspaces <= 50))
    throw new Error("--noise-workspaces must be a whole number from 0 to 50");
  if (!(noiseShare >= 0 && noiseShare <= 1)) throw new Error("--noise must be between 0 and 1");
  return {
    records,
    seed: seedOption(values.seed),
    quick,
    clients: Math.trunc(positive("clients", values.clients, 4)),
    requests: Math.trunc(positive("requests", values.requests, quick ? 30 : 200)),
    seconds: positive("seconds", values.seconds, quick ? 1.5 : 15),
    singleRows: Math.trunc(positive("single", values.single, quick ? 200 : 2000)),
    noiseWorkspaces,
    noiseShare,
    words: Math.trunc(positive("words", values.words, 5000)),
    zipf: 1.07,
    modes: modes as ModeName[],
    erase: chosen.includes(ERASE_MODE),
    keep: values.keep ?? false,
    embedder,
    load,
    ...(values.reuse === undefined ? {} : { reuse: values.reuse }),
  };
}
