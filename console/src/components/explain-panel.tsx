// "Why it ranked there": a hit's `explain` (docs/console.md "Why a hit ranked there", docs/api.md "Explaining a ranking"; src/search/explain.ts) as
// its signals, the rank expression with every node's value, the candidate lists that proposed it
// and its rank in each source.
import type { HitExplain, OrderValue, RankTreeNode, SearchHit } from "../types";
import { Json } from "./common";
import { TableHead } from "./data-table";

/** A number short enough to read (6 significant digits); the exact value is the title. */
export function num(value: unknown): string {
  if (typeof value !== "number") return value === null || value === undefined ? "—" : String(value);
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(6)));
}

function Num(props: { value: unknown; testid?: string }) {
  return (
    <span
      class="num-value"
      title={String(props.value)}
      data-testid={props.testid}
      data-value={String(props.value)}
    >
      {num(props.value)}
    </span>
  );
}

function hours(value: number | undefined): string {
  if (value === undefined) return "—";
  if (value < 48) return `${num(Number(value.toPrecision(3)))} h`;
  return `${num(Number(value.toFixed(1)))} h (${Math.round(value / 24)} d)`;
}

/** One line summing the explanation up, for the <summary> of the hit's details. */
export function explainSummary(explain: HitExplain): string {
  const parts: string[] = [];
  if (explain.proposed_by?.length) parts.push(`proposed by ${explain.proposed_by.join(", ")}`);
  const s = explain.signals;
  if (s?.similarity !== null && s?.similarity !== undefined) parts.push(`similarity ${num(s.similarity)}`);
  if (s?.text_match !== null && s?.text_match !== undefined) parts.push(`text_match ${num(s.text_match)}`);
  if (explain.order_by?.length)
    parts.push(explain.order_by.map((o) => `${o.field} ${JSON.stringify(o.value)}`).join(", "));
  return parts.join(" · ");
}

const KNOWN = new Set(["signals", "rank", "order_by", "proposed_by", "source_ranks"]);

export function ExplainPanel(props: { hit: SearchHit }) {
  const explain = props.hit.explain;
  if (!explain) return null;
  const s = explain.signals;
  const sourceRanks = explain.source_ranks ?? props.hit.source_ranks;
  const extra = Object.entries(explain).filter(([k]) => !KNOWN.has(k));
  return (
    <div class="explain-panel" data-testid="explain">
      <section aria-label="Signals">
        <h3 class="caps-heading">Signals</h3>
        {s ? (
          <dl class="facts">
            <dt>similarity</dt>
            <dd data-testid="signal-similarity">
              <Num value={s.similarity} />
            </dd>
            <dt>text_match</dt>
            <dd data-testid="signal-text_match">
              <Num value={s.text_match} />
            </dd>
            {Object.entries(s.age_hours ?? {}).map(([field, value]) => [
              <dt key={`${field}-t`}>age_hours({field})</dt>,
              <dd key={`${field}-d`} title={String(value)}>
                {hours(value)}
              </dd>,
            ])}
            {Object.entries(s.scores ?? {}).map(([name, value]) => [
              <dt key={`${name}-t`}>score({name})</dt>,
              <dd key={`${name}-d`}>
                <Num value={value} />
              </dd>,
            ])}
            {Object.keys(s.scores ?? {}).length === 0 ? (
              <>
                <dt>scores</dt>
                <dd class="muted">none stored</dd>
              </>
            ) : null}
          </dl>
        ) : (
          <p class="muted">No signals.</p>
        )}
      </section>
      <section aria-label={explain.rank ? "Rank expression" : "Order"}>
        <h3 class="caps-heading">{explain.rank ? "Rank expression" : "Order"}</h3>
        {explain.rank ? (
          <ul class="rank-tree" data-testid="rank-tree">
            <RankNodeItem node={explain.rank} root />
          </ul>
        ) : explain.order_by ? (
          <OrderValues values={explain.order_by} />
        ) : (
          <p class="muted">No rank expression (structured order).</p>
        )}
      </section>
      <section aria-label="Candidates">
        <h3 class="caps-heading">Candidates</h3>
        <dl class="facts">
          <dt>proposed by</dt>
          <dd data-testid="proposed-by">
            {explain.proposed_by?.length ? (
              explain.proposed_by.map((list) => (
                <span class="badge" key={list}>
                  {list}
                </span>
              ))
            ) : (
              <span class="muted">—</span>
            )}
          </dd>
          {sourceRanks
            ? Object.entries(sourceRanks).map(([source, rank]) => [
                <dt key={`${source}-t`}>rank in {source}</dt>,
                <dd key={`${source}-d`}>{String(rank)}</dd>,
              ])
            : null}
        </dl>
        {explain.rank && explain.order_by ? <OrderValues values={explain.order_by} /> : null}
        {extra.length > 0 ? <Json value={Object.fromEntries(extra)} label="More of the explanation" /> : null}
      </section>
    </div>
  );
}

function OrderValues(props: { values: OrderValue[] }) {
  return (
    <table class="order-values">
      <caption class="muted">Sorted by (order_by)</caption>
      <TableHead columns={["Field", "Direction", "Value"]} />
      <tbody>
        {props.values.map((o) => (
          <tr key={o.field}>
            <td>
              <code>{o.field}</code>
            </td>
            <td>{o.direction}</td>
            <td>
              <code>{JSON.stringify(o.value)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const LABEL_KEYS = new Set([
  "op",
  "signal",
  "const",
  "source",
  "value",
  "args",
  "rank",
  "order_by",
  "name",
  "field",
]);

/** What a node is: `sum`, `score(urgency)`, `const 1`, `source main`. */
export function nodeLabel(node: RankTreeNode): string {
  if (node.signal) {
    const argument = node.name ?? node.field;
    return argument === undefined ? node.signal : `${node.signal}(${String(argument)})`;
  }
  if (node.const !== undefined) return `const ${node.const}`;
  if (node.source !== undefined) return `source ${node.source}`;
  if (node.op) return node.op;
  return "node";
}

/** A node's options (decay's midpoint and exponent, normalize's min and max, rrf's rank_constant). */
function nodeOptions(node: RankTreeNode): string {
  return Object.entries(node)
    .filter(([k, v]) => !LABEL_KEYS.has(k) && v !== undefined && (typeof v !== "object" || v === null))
    .map(([k, v]) => `${k} ${typeof v === "number" ? num(v) : String(v)}`)
    .join(" · ");
}

function RankNodeItem(props: { node: RankTreeNode; root?: boolean }) {
  const { node } = props;
  const options = nodeOptions(node);
  // Child nodes and an rrf argument's rank have this node's shape; the schema leaves them open
  // objects rather than recursive (the rankTreeNode schema, docs/api.md "Explaining a ranking: `explain`").
  const children = [...(node.args ?? []), ...(node.rank ? [node.rank] : [])] as RankTreeNode[];
  return (
    <li class={props.root ? "rank-root" : undefined}>
      <span class="rank-node">
        <code class="rank-op">{nodeLabel(node)}</code>
        {options ? <span class="rank-options">{options}</span> : null}
        <span class="rank-eq" aria-hidden="true">
          =
        </span>
        <span class="sr-only">value</span>
        <Num value={node.value} testid={props.root ? "rank-root" : undefined} />
      </span>
      {node.order_by ? <OrderValues values={node.order_by as OrderValue[]} /> : null}
      {children.length > 0 ? (
        <ul>
          {children.map((child, i) => (
            <RankNodeItem key={i} node={child} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
