// Search latency against corpus size as a log-log SVG, one line per mode: x1 p50 (ms) over
// records, so bench/RESULTS.md can show how each mode's cost grows from 10k to 1M records.
// Hand-written SVG, no dependencies; `npm run bench` writes it beside a run's .json and .md.
//   npm run bench:plot -- bench/results/<run>.json [out.svg]
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MODES } from "./modes.js";
import type { SizeResult } from "./report.js";

const WIDTH = 800;
const HEIGHT = 500;
/** The plot area; the legend fills the right margin. */
const AREA = { left: 70, right: 600, top: 60, bottom: 440 };

// A mode and its @customer variant share a colour (the variant dashed) so the pair reads as
// one path scoped two ways; colours follow MODES, so a mode keeps its colour across runs.
const BASES = [...new Set(MODES.map((mode) => mode.split("@")[0] as string))];
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#499894",
  "#59a14f",
  "#b6992d",
  "#b07aa1",
  "#d37295",
  "#9c755f",
  "#17becf",
  "#79706e",
  "#000000",
];

const ENTITIES: Record<string, string> = {
  "<": "&lt;",
  ">": "&gt;",
  "&": "&amp;",
  '"': "&quot;",
  "'": "&apos;",
};
const xml = (text: string) => text.replace(/[<>&"']/g, (c) => ENTITIES[c] as string);

/** One decimal is well below a pixel and keeps the file small. */
const px = (v: number) => String(Math.round(v * 10) / 10);

const plottable = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x) && x > 0;

interface Point {
  records: number;
  ms: number;
}

/** Whole decades around the values, at least one wide (log10 of the axis ends). */
function decades(values: number[]): [number, number] {
  const lo = Math.floor(Math.log10(Math.min(...values)));
  return [lo, Math.max(Math.ceil(Math.log10(Math.max(...values))), lo + 1)];
}

const recordsLabel = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n));

export function latencyPlot(run: {
  sizes: SizeResult[];
  db: string;
  layout: string;
  commit: string;
  date: string;
}): string | undefined {
  const sizes = [...run.sizes].sort((a, b) => a.records - b.records);
  const series = MODES.flatMap((mode) => {
    const points = sizes.flatMap((size): Point[] => {
      const ms = size.search[mode]?.x1.p50;
      return plottable(size.records) && plottable(ms) ? [{ records: size.records, ms }] : [];
    });
    return points.length > 0 ? [{ mode, points }] : [];
  });
  const all = series.flatMap((s) => s.points);
  if (new Set(all.map((p) => p.records)).size < 2) return undefined;

  const [x0, x1] = decades(all.map((p) => p.records));
  const [y0, y1] = decades(all.map((p) => p.ms));
  const x = (records: number) =>
    AREA.left + ((Math.log10(records) - x0) / (x1 - x0)) * (AREA.right - AREA.left);
  const y = (ms: number) => AREA.bottom - ((Math.log10(ms) - y0) / (y1 - y0)) * (AREA.bottom - AREA.top);

  const heading = "Search latency p50 (1 client) against corpus size";
  const subtitle = xml(
    [run.db, run.layout, run.commit && `commit ${run.commit}`, run.date].filter(Boolean).join(" · "),
  );
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    // The accessible name of the picture (screen readers; biome's a11y rule checks it).
    `<title>${heading}: ${subtitle}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${heading}</text>`,
    `<text x="${WIDTH / 2}" y="43" text-anchor="middle" fill="#555">${subtitle}</text>`,
  ];

  // Gridlines: light at 2..9 times each power of ten (to read values off a log axis), darker
  // at the decades, which carry the tick labels.
  const minor: string[] = [];
  const major: string[] = [];
  const ticks: string[] = [];
  for (let d = x0; d <= x1; d++) {
    const at = px(x(10 ** d));
    major.push(`M${at} ${AREA.top}V${AREA.bottom}`);
    ticks.push(
      `<text x="${at}" y="${AREA.bottom + 18}" text-anchor="middle">${recordsLabel(10 ** d)}</text>`,
    );
    for (let m = 2; m < 10 && d < x1; m++) minor.push(`M${px(x(m * 10 ** d))} ${AREA.top}V${AREA.bottom}`);
  }
  for (let d = y0; d <= y1; d++) {
    const at = px(y(10 ** d));
    major.push(`M${AREA.left} ${at}H${AREA.right}`);
    ticks.push(`<text x="${AREA.left - 8}" y="${at}" text-anchor="end" dy="4">${String(10 ** d)}</text>`);
    for (let m = 2; m < 10 && d < y1; m++) minor.push(`M${AREA.left} ${px(y(m * 10 ** d))}H${AREA.right}`);
  }
  out.push(
    `<path d="${minor.join("")}" stroke="#eee"/>`,
    `<path d="${major.join("")}" stroke="#ccc"/>`,
    `<rect x="${AREA.left}" y="${AREA.top}" width="${AREA.right - AREA.left}" height="${AREA.bottom - AREA.top}" fill="none" stroke="#333"/>`,
    ...ticks,
    `<text x="${(AREA.left + AREA.right) / 2}" y="${AREA.bottom + 42}" text-anchor="middle">records (log scale)</text>`,
    `<text transform="translate(22 ${(AREA.top + AREA.bottom) / 2}) rotate(-90)" text-anchor="middle">x1 p50 latency, ms (log scale)</text>`,
  );

  const legendX = AREA.right + 20;
  series.forEach(({ mode, points }, i) => {
    const colour = PALETTE[BASES.indexOf(mode.split("@")[0] as string) % PALETTE.length] as string;
    const dash = mode.includes("@") ? ` stroke-dasharray="6 4"` : "";
    const markers = points.map(
      (p) =>
        `<circle cx="${px(x(p.records))}" cy="${px(y(p.ms))}" r="3.5"><title>${xml(mode)}: ${p.records} records, ${p.ms} ms</title></circle>`,
    );
    const rowY = AREA.top + 10 + i * 18;
    out.push(
      `<g data-mode="${xml(mode)}" fill="${colour}" stroke="${colour}">`,
      `<polyline points="${points.map((p) => `${px(x(p.records))},${px(y(p.ms))}`).join(" ")}" fill="none" stroke-width="2"${dash}/>`,
      ...markers,
      `<path d="M${legendX} ${rowY}h26" stroke-width="2"${dash}/>`,
      `<circle cx="${legendX + 13}" cy="${rowY}" r="3.5"/>`,
      `<text x="${legendX + 34}" y="${rowY + 4}" fill="#222" stroke="none">${xml(mode)}</text>`,
      "</g>",
    );
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

// Run directly: plot a saved run, next to its .json unless an output path is given.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [input, output] = process.argv.slice(2);
  if (!input) {
    console.error("usage: npm run bench:plot -- bench/results/<run>.json [out.svg]");
    process.exitCode = 2;
  } else {
    const svg = latencyPlot(JSON.parse(await readFile(input, "utf8")));
    if (svg === undefined) {
      console.error(`${input}: fewer than 2 corpus sizes with search figures, nothing to plot`);
      process.exitCode = 1;
    } else {
      const target = output ?? `${input.replace(/\.json$/, "")}.svg`;
      await writeFile(target, svg);
      console.log(`saved ${target}`);
    }
  }
}
