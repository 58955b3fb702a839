// A graph view's answer drawn as nodes and links: an SVG laid out here (a deterministic
// force-directed layout, Fruchterman-Reingold, started from a circle), with the nodes and links
// also as tables for screen readers and for copying.
import { useMemo } from "preact/hooks";
import { navigate } from "../router";

export interface GraphLink {
  id: string;
  from: string;
  to: string;
  label?: string;
}

export interface Point {
  x: number;
  y: number;
}

export const WIDTH = 800;
export const HEIGHT = 460;
const PAD = 48;
const RADIUS = 9;

/**
 * Positions for `nodes` in a WIDTH×HEIGHT box. Deterministic for the same input (no randomness),
 * so the picture does not move between reloads. O(iterations · n²), fine for a view's ≤ 500 nodes.
 */
export function layoutGraph(
  nodes: string[],
  links: GraphLink[],
  width = WIDTH,
  height = HEIGHT,
): Map<string, Point> {
  const n = nodes.length;
  const at = new Map<string, Point>();
  if (n === 0) return at;
  if (n === 1) {
    at.set(nodes[0] as string, { x: width / 2, y: height / 2 });
    return at;
  }
  const index = new Map(nodes.map((node, i) => [node, i]));
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const angle = (2 * Math.PI * i) / n;
    xs[i] = Math.cos(angle) * width * 0.35;
    ys[i] = Math.sin(angle) * height * 0.35;
  }
  const pairs = links
    .map((l) => [index.get(l.from), index.get(l.to)] as const)
    .filter((p): p is readonly [number, number] => p[0] !== undefined && p[1] !== undefined && p[0] !== p[1]);
  if (pairs.length > 0) {
    const k = Math.sqrt((width * height) / n) * 0.75;
    const iterations = n > 200 ? 80 : n > 60 ? 150 : 300;
    let temperature = width / 8;
    const dx = new Float64Array(n);
    const dy = new Float64Array(n);
    for (let step = 0; step < iterations; step++) {
      dx.fill(0);
      dy.fill(0);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          let ex = (xs[i] as number) - (xs[j] as number);
          let ey = (ys[i] as number) - (ys[j] as number);
          let d2 = ex * ex + ey * ey;
          if (d2 < 0.01) {
            // Coincident nodes: a fixed nudge apart, by index, keeps the layout deterministic.
            ex = 0.1 * (i - j);
            ey = 0.1;
            d2 = ex * ex + ey * ey;
          }
          const force = (k * k) / d2;
          dx[i] = (dx[i] as number) + ex * force;
          dy[i] = (dy[i] as number) + ey * force;
          dx[j] = (dx[j] as number) - ex * force;
          dy[j] = (dy[j] as number) - ey * force;
        }
      }
      for (const [a, b] of pairs) {
        const ex = (xs[a] as number) - (xs[b] as number);
        const ey = (ys[a] as number) - (ys[b] as number);
        const d = Math.sqrt(ex * ex + ey * ey) || 0.01;
        const force = d / k;
        dx[a] = (dx[a] as number) - ex * force;
        dy[a] = (dy[a] as number) - ey * force;
        dx[b] = (dx[b] as number) + ex * force;
        dy[b] = (dy[b] as number) + ey * force;
      }
      for (let i = 0; i < n; i++) {
        // A weak pull to the middle keeps unlinked parts from drifting off.
        dx[i] = (dx[i] as number) - (xs[i] as number) * 0.02;
        dy[i] = (dy[i] as number) - (ys[i] as number) * 0.02;
        const d = Math.sqrt((dx[i] as number) ** 2 + (dy[i] as number) ** 2) || 1;
        const move = Math.min(d, temperature);
        xs[i] = (xs[i] as number) + ((dx[i] as number) / d) * move;
        ys[i] = (ys[i] as number) + ((dy[i] as number) / d) * move;
      }
      temperature = Math.max(1, temperature * 0.97);
    }
  }
  // Fit the layout into the box, keeping its aspect inside the padding.
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, xs[i] as number);
    maxX = Math.max(maxX, xs[i] as number);
    minY = Math.min(minY, ys[i] as number);
    maxY = Math.max(maxY, ys[i] as number);
  }
  const sx = (width - 2 * PAD) / Math.max(maxX - minX, 1e-9);
  const sy = (height - 2 * PAD) / Math.max(maxY - minY, 1e-9);
  for (let i = 0; i < n; i++) {
    const x = maxX - minX < 1e-6 ? width / 2 : PAD + ((xs[i] as number) - minX) * sx;
    const y = maxY - minY < 1e-6 ? height / 2 : PAD + ((ys[i] as number) - minY) * sy;
    at.set(nodes[i] as string, { x, y });
  }
  return at;
}

const GRID_COLUMNS = 6;
const GRID_ROW = 64;

function gridHeight(n: number): number {
  return Math.max(1, Math.ceil(n / GRID_COLUMNS)) * GRID_ROW + 24;
}

/** Unlinked nodes in rows of GRID_COLUMNS, in their order. */
export function gridLayout(nodes: string[]): Map<string, Point> {
  const at = new Map<string, Point>();
  const columns = Math.min(GRID_COLUMNS, Math.max(1, nodes.length));
  const cell = WIDTH / columns;
  nodes.forEach((node, i) => {
    at.set(node, { x: cell * ((i % columns) + 0.5), y: 30 + GRID_ROW * Math.floor(i / columns) });
  });
  return at;
}

/** The SVG path of a link: straight, or bowed when the opposite link is drawn too; ends at the node's rim. */
function linkPath(a: Point, b: Point, bowed: boolean): { d: string; mid: Point } {
  const ex = b.x - a.x;
  const ey = b.y - a.y;
  const length = Math.sqrt(ex * ex + ey * ey) || 1;
  const ux = ex / length;
  const uy = ey / length;
  const start = { x: a.x + ux * RADIUS, y: a.y + uy * RADIUS };
  const end = { x: b.x - ux * (RADIUS + 3), y: b.y - uy * (RADIUS + 3) };
  if (!bowed) {
    return {
      d: `M${f(start.x)},${f(start.y)} L${f(end.x)},${f(end.y)}`,
      mid: { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 },
    };
  }
  const bow = Math.min(40, length / 4);
  const control = { x: (a.x + b.x) / 2 - uy * bow, y: (a.y + b.y) / 2 + ux * bow };
  return {
    d: `M${f(start.x)},${f(start.y)} Q${f(control.x)},${f(control.y)} ${f(end.x)},${f(end.y)}`,
    mid: { x: (start.x + 2 * control.x + end.x) / 4, y: (start.y + 2 * control.y + end.y) / 4 },
  };
}

const f = (v: number) => v.toFixed(1);

/**
 * The picture. `seed` is drawn apart; `nodeHref` makes each node a link (walk from there).
 */
export function GraphPicture(props: {
  nodes: string[];
  links: GraphLink[];
  title: string;
  seed?: string;
  nodeHref?: (node: string) => string;
}) {
  const { nodes, links } = props;
  // Nodes without links (an orphans view) sit in a grid, in a picture only as tall as it needs.
  const height = links.length === 0 ? gridHeight(nodes.length) : HEIGHT;
  const positions = useMemo(
    () => (links.length === 0 ? gridLayout(nodes) : layoutGraph(nodes, links)),
    [nodes, links],
  );
  const pairs = new Set(links.map((l) => `${l.from}\u0000${l.to}`));
  return (
    <figure class="graph">
      <svg viewBox={`0 0 ${WIDTH} ${height}`} data-testid="graph-svg" preserveAspectRatio="xMidYMid meet">
        <title>{props.title}</title>
        <defs>
          <marker
            id="graph-arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" class="graph-arrow" />
          </marker>
        </defs>
        <g class="graph-links">
          {links.map((link) => {
            const a = positions.get(link.from);
            const b = positions.get(link.to);
            if (!a || !b) return null;
            if (link.from === link.to) {
              const d = `M${f(a.x - 6)},${f(a.y - RADIUS + 1)} C${f(a.x - 30)},${f(a.y - 45)} ${f(a.x + 30)},${f(a.y - 45)} ${f(a.x + 6)},${f(a.y - RADIUS - 2)}`;
              return (
                <g key={link.id} class="graph-link" data-testid="graph-link">
                  <path d={d} marker-end="url(#graph-arrow)" />
                  {link.label ? (
                    <text x={f(a.x)} y={f(a.y - 40)} class="graph-link-label">
                      {link.label}
                    </text>
                  ) : null}
                </g>
              );
            }
            const { d, mid } = linkPath(a, b, pairs.has(`${link.to}\u0000${link.from}`));
            return (
              <g key={link.id} class="graph-link" data-testid="graph-link">
                <title>
                  {link.from} {link.label ?? "→"} {link.to}
                </title>
                <path d={d} marker-end="url(#graph-arrow)" />
                {link.label ? (
                  <text x={f(mid.x)} y={f(mid.y - 3)} class="graph-link-label">
                    {link.label}
                  </text>
                ) : null}
              </g>
            );
          })}
        </g>
        <g class="graph-nodes">
          {nodes.map((node) => {
            const p = positions.get(node);
            if (!p) return null;
            const shape = (
              <>
                <circle cx={f(p.x)} cy={f(p.y)} r={RADIUS} />
                <text x={f(p.x)} y={f(p.y + RADIUS + 13)} class="graph-node-label">
                  {node}
                </text>
              </>
            );
            const cls = `graph-node${node === props.seed ? " seed" : ""}`;
            const target = props.nodeHref?.(node);
            return target ? (
              <a
                key={node}
                href={target}
                class={cls}
                data-testid="graph-node"
                aria-label={`Walk from ${node}`}
                onClick={(event) => {
                  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                  event.preventDefault();
                  navigate(target);
                }}
              >
                {shape}
              </a>
            ) : (
              <g key={node} class={cls} data-testid="graph-node">
                <title>{node}</title>
                {shape}
              </g>
            );
          })}
        </g>
      </svg>
      <figcaption class="muted">
        {nodes.length} {nodes.length === 1 ? "node" : "nodes"}, {links.length}{" "}
        {links.length === 1 ? "link" : "links"}
        {props.nodeHref ? " · select a node to walk from it" : ""}
      </figcaption>
    </figure>
  );
}
