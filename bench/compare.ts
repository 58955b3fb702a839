// Two runs of `npm run bench` side by side, to tell a real change from run-to-run noise:
// every ingest figure and every search mode's p50 (1 and 8 clients), SQL floor and paired
// API/SQL ratio, with the second run's change against the first, and per size the median
// change of each column. The ratio divides out the machine's speed of the moment (a shared VM
// can run everything 30% faster or slower for minutes), so it should agree most closely.
// `x1 n` is each run's number of measured requests: a mode cut short by the time budget has a
// p50 of few samples, which moves more between runs.
//   npm run bench:compare -- bench/results/<first>.json bench/results/<second>.json
import { readFile } from "node:fs/promises";
import { MODES } from "./modes.js";
import { fmt, type SizeResult, table } from "./report.js";

interface Run {
  db: string;
  /** Absent in runs saved before the layout was recorded. */
  layout?: string;
  commit: string;
  date: string;
  sizes: SizeResult[];
}

const INGEST = [
  "batch_100",
  "batch_1",
  "enrich_backlog",
  "write_to_ready",
  "enrich_backlog_indexed",
  "write_to_indexed",
] as const;

/** Change of b against a, as a fraction (undefined when either side is missing). */
function change(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || a === 0)
    return undefined;
  return (b - a) / a;
}

const percent = (x: number | undefined) =>
  x === undefined ? "-" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(0)}%`;

const value = (x: number | undefined) => (x === undefined ? "-" : fmt(x));
const ratio = (x: number | undefined) => (x === undefined ? "-" : `${x.toFixed(2)}x`);

/** One compared figure: both values and the change, kept numeric for the summary. */
interface Compared {
  a: number | undefined;
  b: number | undefined;
  change: number | undefined;
}

const compared = (a: number | undefined, b: number | undefined): Compared => ({ a, b, change: change(a, b) });
const cells = (c: Compared, show = value) => [show(c.a), show(c.b), percent(c.change)];

function median(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const sorted = [...xs].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** "median |change| 12%, 9 of 13 within ±20%" over one column. */
function spread(column: Compared[]): string {
  const changes = column.flatMap((c) => (c.change === undefined ? [] : [Math.abs(c.change)]));
  const within = changes.filter((x) => x <= 0.2).length;
  return `median |change| ${percent(median(changes)).replace("+", "")}, ${within} of ${changes.length} within ±20%`;
}

function sizeSection(sa: SizeResult, sb: SizeResult): string[] {
  const ingest = INGEST.map((name) => ({
    name,
    c: compared(sa.ingest?.[name]?.rows_per_s, sb.ingest?.[name]?.rows_per_s),
  }));
  const modes = MODES.flatMap((mode) => {
    const fa = sa.search[mode];
    const fb = sb.search[mode];
    if (!fa || !fb) return [];
    return [
      {
        mode,
        n: `${fa.x1.n} / ${fb.x1.n}`,
        x1: compared(fa.x1.p50, fb.x1.p50),
        x8: compared(fa.x8.p50, fb.x8.p50),
        floor: compared(fa.floor.p50, fb.floor.p50),
        ratio: compared(fa.ratio_paired, fb.ratio_paired),
      },
    ];
  });
  return [
    `Ingest at ${sa.records} records, rows/s`,
    "",
    table(
      ["figure", "run 1", "run 2", "change"],
      ingest.map(({ name, c }) => [name, ...cells(c)]),
    ),
    "",
    `Search at ${sa.records} records, p50 ms, and the paired API/SQL ratio`,
    "",
    table(
      [
        "mode",
        "x1 n",
        "x1 run 1",
        "run 2",
        "change",
        "x8 run 1",
        "run 2",
        "change",
        "floor run 1",
        "run 2",
        "change",
        "API/SQL run 1",
        "run 2",
        "change",
      ],
      modes.map((m) => [
        m.mode,
        m.n,
        ...cells(m.x1),
        ...cells(m.x8),
        ...cells(m.floor),
        ...cells(m.ratio, ratio),
      ]),
    ),
    "",
    `- ingest: ${spread(ingest.map((i) => i.c))}`,
    `- x1 p50: ${spread(modes.map((m) => m.x1))}`,
    `- x8 p50: ${spread(modes.map((m) => m.x8))}`,
    `- SQL floor p50: ${spread(modes.map((m) => m.floor))}`,
    `- API/SQL paired: ${spread(modes.map((m) => m.ratio))}`,
  ];
}

function compare(a: Run, b: Run): string {
  const parts = [`## ${a.layout ?? a.db}: run 1 ${a.date} (${a.commit}), run 2 ${b.date} (${b.commit})`];
  for (const sa of a.sizes) {
    const sb = b.sizes.find((s) => s.records === sa.records);
    if (sb) parts.push("", ...sizeSection(sa, sb));
  }
  return parts.join("\n");
}

const files = process.argv.slice(2);
const runs = await Promise.all(files.map(async (f) => JSON.parse(await readFile(f, "utf8")) as Run));
const [a, b] = runs;
if (runs.length !== 2 || !a || !b) {
  console.error("usage: npm run bench:compare -- <first run>.json <second run>.json");
  process.exit(2);
}
const engine = (run: Run) => run.layout ?? run.db;
if (engine(a) !== engine(b)) console.error(`note: comparing a ${engine(a)} run with a ${engine(b)} run`);
console.log(compare(a, b));
