import { describe, expect, it } from "vitest";
import { latencyPlot } from "../../bench/plot.js";
import type { SizeResult } from "../../bench/report.js";

/** A size with only what the plot reads: records and each mode's x1 p50. */
function size(records: number, p50s: Record<string, number>): SizeResult {
  const search = Object.fromEntries(
    Object.entries(p50s).map(([mode, p50]) => [
      mode,
      { x1: { n: 100, errors: 0, p50, p95: p50 * 2, p99: p50 * 3, rps: 1000 / p50 } },
    ]),
  );
  return { records, search } as unknown as SizeResult;
}

const run = (sizes: SizeResult[], over: Partial<{ db: string; layout: string }> = {}) => ({
  sizes,
  db: "postgres",
  layout: "postgres/hnsw",
  commit: "abc1234",
  date: "2026-11-25T07:16:36.581Z",
  ...over,
});

const THREE = [
  size(10_000, { text: 2, "text@customer": 3 }),
  size(100_000, { text: 20, "text@customer": 1.6 }),
  size(1_000_000, { text: 200, "text@customer": 1.8 }),
];

/** The points of each mode's polyline, keyed by mode. */
function polylines(svg: string): Map<string, { x: number; y: number }[]> {
  const found = new Map<string, { x: number; y: number }[]>();
  for (const m of svg.matchAll(/<g data-mode="([^"]+)"[^>]*>\s*<polyline points="([^"]+)"/g)) {
    const points = (m[2] as string).split(" ").map((pair) => {
      const [x, y] = pair.split(",").map(Number);
      return { x: x as number, y: y as number };
    });
    found.set(m[1] as string, points);
  }
  return found;
}

describe("latencyPlot", () => {
  it("plots nothing with fewer than two sizes that have search figures", () => {
    expect(latencyPlot(run([size(20_000, { recent: 3.45 })]))).toBeUndefined();
    expect(latencyPlot(run([size(10_000, { text: 2 }), size(100_000, {})]))).toBeUndefined();
    expect(latencyPlot(run([]))).toBeUndefined();
  });

  it("draws an SVG document with one polyline per mode present", () => {
    const svg = latencyPlot(run(THREE)) as string;
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    // Its accessible name: the svg's first child is a non-empty title.
    expect(svg.split("\n")[1]).toMatch(/^<title>Search latency p50 .+<\/title>$/);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect([...polylines(svg).keys()]).toEqual(["text", "text@customer"]);
    for (const points of polylines(svg).values()) expect(points).toHaveLength(3);
  });

  it("spaces decade sizes equally (log x) and draws a larger p50 higher (log y)", () => {
    const lines = polylines(latencyPlot(run(THREE)) as string);
    const text = lines.get("text") ?? [];
    const [a, b, c] = text as [{ x: number; y: number }, { x: number; y: number }, { x: number; y: number }];
    expect(b.x - a.x).toBeGreaterThan(0);
    expect(c.x - b.x).toBeCloseTo(b.x - a.x, 0);
    // 2 -> 20 -> 200 ms: each a decade, so equal steps upwards too.
    expect(b.y).toBeLessThan(a.y);
    expect(a.y - b.y).toBeCloseTo(b.y - c.y, 0);
    // At each size the slower mode is drawn above the faster one (text@customer at 10k, text at 1M).
    const scoped = lines.get("text@customer") ?? [];
    expect(text[2]?.y).toBeLessThan(scoped[2]?.y as number);
    expect(scoped[0]?.y).toBeLessThan(text[0]?.y as number);
  });

  it("labels decades and lists the modes in the legend", () => {
    const svg = latencyPlot(run(THREE)) as string;
    for (const label of [">10k<", ">100k<", ">1M<", ">1<", ">10<", ">100<", ">1000<"]) {
      expect(svg).toContain(label);
    }
    expect(svg).toMatch(/<text[^>]*>text<\/text>/);
    expect(svg).toMatch(/<text[^>]*>text@customer<\/text>/);
    expect(svg).toContain("commit abc1234");
  });

  it("skips non-finite and non-positive values", () => {
    const svg = latencyPlot(
      run([
        size(10_000, { vector: 5, graph: Number.NaN }),
        size(100_000, { vector: 0, graph: 3 }),
        size(1_000_000, { vector: 9, graph: Number.POSITIVE_INFINITY }),
      ]),
    ) as string;
    const lines = polylines(svg);
    expect(lines.get("vector")).toHaveLength(2);
    expect(lines.get("graph")).toHaveLength(1);
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  it("escapes text for XML", () => {
    const svg = latencyPlot(run(THREE, { db: "pg<&>", layout: `"quoted"` })) as string;
    expect(svg).toContain("pg&lt;&amp;&gt;");
    expect(svg).toContain("&quot;quoted&quot;");
    expect(svg).not.toContain("pg<&");
  });
});
