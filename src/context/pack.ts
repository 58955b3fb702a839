// Packs the context components into one token budget (docs/api.md "`GET /context`"):
// - Components render in order, each as bare search-rendering rows (escaped, one line a
//   record, a truncation row when cut), joined by a newline, inside the fence when one is given.
// - Shares of the budget left after the fence: state 40%, relevant 35%, recent 25%; with a
//   consumer recent and delta split recent's 25% in halves. A component's allowance is its
//   cumulative share minus what the components before it used, so an unused share (or the
//   share of an absent component) passes on to the next, and the last gets all that is left.
// - Each component keeps one token of its allowance for the newline that joins it to the next.
//   tokens is the exact count of the whole block; should it ever pass the budget, the packing
//   runs again with the overshoot taken off (deterministic, and it ends: the budget shrinks).
import {
  countRenderTokens,
  type RenderOptions,
  type RowRecord,
  renderRows,
  wrapLines,
  wrapper,
} from "../search/index.js";

export type ComponentName = "state" | "relevant" | "recent" | "delta";

export interface ComponentRows {
  name: ComponentName;
  rows: RowRecord[];
}

export interface PackedComponent {
  name: ComponentName;
  /** The records rendered, in order. */
  record_ids: string[];
  tokens: number;
  truncated: boolean;
}

export interface Packed {
  components: PackedComponent[];
  input_record_ids: string[];
  rendered: string;
  tokens: number;
  truncated: boolean;
}

const SHARES = { state: 0.4, relevant: 0.35, recent: 0.25 } as const;

/** Shares in render order; an absent component's share goes to the one after it. */
function shares(names: readonly ComponentName[]): number[] {
  const halved = names.includes("delta");
  return names.map((name) => {
    if (name === "delta") return SHARES.recent / 2;
    if (name !== "recent") return SHARES[name];
    return (halved ? SHARES.recent / 2 : SHARES.recent) + (names.includes("relevant") ? 0 : SHARES.relevant);
  });
}

/** Each record once, in the first component that holds it. */
export function dedupe(components: readonly ComponentRows[]): ComponentRows[] {
  const seen = new Set<string>();
  return components.map(({ name, rows }) => ({
    name,
    rows: rows.filter((row) => !seen.has(row.id) && Boolean(seen.add(row.id))),
  }));
}

function packWithin(
  components: readonly ComponentRows[],
  rowBudget: number,
  options: { displayScores: readonly string[] },
) {
  const portion = shares(components.map((c) => c.name));
  let used = 0;
  let cumulative = 0;
  return components.map((component, i) => {
    cumulative += portion[i] as number;
    const last = i === components.length - 1;
    const allowance = (last ? rowBudget : Math.floor(rowBudget * cumulative)) - used;
    const out = renderRows(component.rows, {
      budgetTokens: Math.max(0, allowance - 1),
      displayScores: options.displayScores,
    });
    // The joining newline is reserved for a non-empty block.
    used += out.rendered ? out.tokens + 1 : 0;
    return { component, out };
  });
}

/** The components rendered within budget tokens (fence included). */
export function packComponents(
  components: readonly ComponentRows[],
  options: { budget: number; fence?: RenderOptions["fence"]; displayScores: readonly string[] },
): Packed {
  const wrap = wrapper(options.fence);
  let rowBudget = options.budget - countRenderTokens(wrap.head) - countRenderTokens(wrap.tail);
  for (;;) {
    const parts = rowBudget >= 0 ? packWithin(components, rowBudget, options) : [];
    const blocks = parts.map((p) => p.out.rendered).filter(Boolean);
    const rendered = rowBudget >= 0 ? wrapLines(wrap, blocks) : "";
    const tokens = countRenderTokens(rendered);
    if (tokens <= options.budget) {
      const packed = components.map((component, i) => {
        const out = parts[i]?.out;
        const shown = out?.rows ?? 0;
        return {
          name: component.name,
          record_ids: component.rows.slice(0, shown).map((row) => row.id),
          tokens: out?.tokens ?? 0,
          truncated: out ? out.truncated : component.rows.length > 0,
        };
      });
      return {
        components: packed,
        input_record_ids: packed.flatMap((c) => c.record_ids),
        rendered,
        tokens,
        truncated: packed.some((c) => c.truncated),
      };
    }
    rowBudget -= tokens - options.budget;
  }
}
