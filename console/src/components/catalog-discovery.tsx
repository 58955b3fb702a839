// The catalog page's discovery tab: what GET /collections, /processors, /triggers, /views,
// /artifacts and /tools answer, one of them at a time (?kind=), as tables with each entry's JSON
// a click away.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api";
import { type Route, withQuery } from "../router";
import { Json, LoadStatus, RefreshButton } from "./common";
import { TableHead } from "./data-table";
import { Link } from "./link";
import { useApi } from "./use-api";

// biome-ignore lint/suspicious/noExplicitAny: discovery answers are read loosely, field by field
type Entry = Record<string, any>;

interface Column {
  title: string;
  render: (entry: Entry) => ComponentChildren;
  class?: string;
}

const list = (items: unknown): ComponentChildren => {
  if (!Array.isArray(items) || items.length === 0) return <span class="muted">—</span>;
  return items.join(", ");
};
const ref = (e: Entry) => `${e.name}${e.version !== undefined ? `@${e.version}` : ""}`;
const yes = (value: unknown) => (value ? "yes" : "no");
const shortHash = (e: Entry) =>
  typeof e.hash === "string" ? (
    <code class="muted" title={e.hash}>
      {e.hash.slice(0, 12)}
    </code>
  ) : null;
/** Parameters as "name: type" with required ones marked. */
const params = (parameters: unknown): ComponentChildren => {
  const entries = Object.entries((parameters ?? {}) as Record<string, { type?: string; required?: boolean }>);
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="plain-list">
      {entries.map(([name, p]) => (
        <li key={name}>
          <code>
            {name}: {p.type ?? "?"}
            {p.required ? " *" : ""}
          </code>
        </li>
      ))}
    </ul>
  );
};

interface Kind {
  label: string;
  path: string;
  /** The list in the answer. */
  key: string;
  columns: Column[];
}

const KINDS: Record<string, Kind> = {
  collections: {
    label: "Collections",
    path: "/collections",
    key: "collections",
    columns: [
      { title: "Collection", render: (e) => <strong>{ref(e)}</strong> },
      { title: "Active", render: (e) => yes(e.active) },
      { title: "Mode", render: (e) => e.mode },
      { title: "Search profile", render: (e) => e.bindings?.search_profile ?? "—" },
      { title: "Required processors", render: (e) => list(e.bindings?.required_processors) },
      { title: "Capabilities", render: (e) => list(e.bindings?.capabilities) },
      { title: "Declared fields", render: (e) => list(Object.keys(e.fields ?? {})) },
      { title: "Answerable", render: (e) => yes(e.answerable) },
      { title: "Hash", render: shortHash },
    ],
  },
  processors: {
    label: "Processors",
    path: "/processors",
    key: "processors",
    columns: [
      { title: "Processor", render: (e) => <strong>{e.name}</strong> },
      { title: "Family", render: (e) => e.family },
      {
        title: "Kind / sources",
        render: (e) => (e.family === "derivation" ? list(Object.keys(e.sources ?? {})) : e.kind),
      },
      { title: "Model", render: (e) => e.model ?? <span class="muted">default</span> },
      {
        title: "Reads",
        render: (e) =>
          e.input
            ? list(e.input.collections)
            : list(Object.values(e.sources ?? {}).flatMap((s) => (s as Entry).collections ?? [])),
      },
      {
        title: "Emits / scale",
        render: (e) =>
          e.emit
            ? `${e.emit.collection} (${e.emit.type}, review ${e.emit.review})`
            : e.scale
              ? e.scale.join("–")
              : "—",
      },
      { title: "Trigger", render: (e) => e.trigger ?? "—" },
      { title: "Description", render: (e) => e.description ?? "", class: "cat-desc" },
    ],
  },
  triggers: {
    label: "Triggers",
    path: "/triggers",
    key: "triggers",
    columns: [
      { title: "Trigger", render: (e) => <strong>{e.name}</strong> },
      { title: "On", render: (e) => e.on },
      { title: "Queues", render: (e) => list(e.derivations) },
      {
        title: "Condition",
        render: (e) =>
          e.accumulator
            ? `${e.accumulator.metric} ≥ ${e.accumulator.threshold}`
            : e.cron
              ? `cron ${e.cron}`
              : e.collections
                ? `writes to ${e.collections.join(", ")}`
                : "—",
      },
      { title: "Cooldown", render: (e) => (e.cooldown_s ? `${e.cooldown_s} s` : "—") },
      { title: "Inline", render: (e) => yes(e.inline) },
    ],
  },
  views: {
    label: "Views",
    path: "/views",
    key: "views",
    columns: [
      { title: "View", render: (e) => <strong>{ref(e)}</strong> },
      { title: "Active", render: (e) => yes(e.active) },
      { title: "Kind", render: (e) => e.kind },
      { title: "Parameters", render: (e) => params(e.parameters) },
      { title: "Collections", render: (e) => list(e.collections) },
      { title: "Needs", render: (e) => list(e.required_capabilities) },
      { title: "Profiles", render: (e) => list(e.profiles) },
      { title: "Hash", render: shortHash },
    ],
  },
  artifacts: {
    label: "Artifacts",
    path: "/artifacts",
    key: "artifacts",
    columns: [
      { title: "Artifact", render: (e) => <strong>{ref(e)}</strong> },
      { title: "Active", render: (e) => yes(e.active) },
      { title: "Kind", render: (e) => `${e.kind ?? ""} (${e.lifecycle ?? ""})` },
      { title: "Parameters", render: (e) => params(e.parameters) },
      {
        title: "Blocks",
        render: (e) =>
          list(
            Object.entries((e.blocks ?? {}) as Record<string, Entry>).map(
              ([name, block]) => `${name} (${block.kind === "view" ? block.view : block.kind})`,
            ),
          ),
      },
      { title: "Description", render: (e) => e.description ?? "", class: "cat-desc" },
    ],
  },
  tools: {
    label: "MCP tools",
    path: "/tools",
    key: "tools",
    columns: [
      { title: "Tool", render: (e) => <strong>{e.name}</strong> },
      { title: "Kind", render: (e) => e.kind },
      { title: "Binding", render: (e) => (e.binding?.reference ? <code>{e.binding.reference}</code> : "—") },
      {
        title: "Inputs",
        render: (e) => {
          const schema = (e.input_schema ?? {}) as {
            properties?: Record<string, Entry>;
            required?: string[];
          };
          const names = Object.keys(schema.properties ?? {});
          return list(names.map((n) => `${n}${schema.required?.includes(n) ? " *" : ""}`));
        },
      },
      { title: "Description", render: (e) => e.description ?? "", class: "cat-desc" },
    ],
  },
};

export const DISCOVERY_KINDS = Object.keys(KINDS);

export function DiscoveryTab(props: { route: Route }) {
  const { route } = props;
  const requested = route.query.get("kind") ?? "collections";
  const name = requested in KINDS ? requested : "collections";
  const kind = KINDS[name] as Kind;
  const answer = useApi((signal) => api<Entry>("GET", kind.path, { signal }), [name]);
  return (
    <>
      <nav class="cat-subnav" aria-label="Discovery endpoints">
        {DISCOVERY_KINDS.map((k) => (
          <Link
            key={k}
            href={withQuery(route, { kind: k === "collections" ? undefined : k })}
            current={k === name}
          >
            {KINDS[k]?.label}
          </Link>
        ))}
      </nav>
      <section class="card" aria-label={kind.label}>
        <header class="card-head">
          <h2>
            {kind.label} <code class="muted">GET {kind.path}</code>
          </h2>
          <RefreshButton of={answer} />
        </header>
        <LoadStatus of={answer} />
        {answer.data && name === "tools" ? <ToolsHeader tools={answer.data} /> : null}
        {answer.data ? (
          <DiscoveryTable kind={kind} entries={(answer.data[kind.key] ?? []) as Entry[]} />
        ) : null}
      </section>
    </>
  );
}

function ToolsHeader(props: { tools: Entry }) {
  const { tools } = props;
  return (
    <dl class="facts cat-tools-head">
      <dt>Protocol</dt>
      <dd>
        <code>{tools.protocol}</code>
      </dd>
      <dt>Package</dt>
      <dd>{tools.package ? `${tools.package.name}@${tools.package.version}` : "—"}</dd>
      <dt>Interface</dt>
      <dd>
        {tools.interface
          ? `${tools.interface.name}@${tools.interface.version}`
          : "none (the package binds no MCP interface)"}
      </dd>
    </dl>
  );
}

function DiscoveryTable(props: { kind: Kind; entries: Entry[] }) {
  const { kind, entries } = props;
  const [open, setOpen] = useState<Set<string>>(new Set());
  if (entries.length === 0) return <p class="muted">None.</p>;
  const toggle = (id: string) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };
  return (
    <div class="table-wrap">
      <table class="cat-table" aria-label={kind.label}>
        <TableHead
          columns={[...kind.columns.map((column) => column.title), { label: "Details", hidden: true }]}
        />
        <tbody>
          {entries.flatMap((entry) => {
            const id = ref(entry);
            const expanded = open.has(id);
            const rows = [
              <tr key={id}>
                {kind.columns.map((column) => (
                  <td key={column.title} class={column.class}>
                    {column.render(entry)}
                  </td>
                ))}
                <td>
                  <button
                    type="button"
                    class="cat-small"
                    aria-expanded={expanded}
                    aria-label={`${expanded ? "Hide" : "Show"} JSON of ${id}`}
                    onClick={() => toggle(id)}
                  >
                    JSON
                  </button>
                </td>
              </tr>,
            ];
            if (expanded)
              rows.push(
                <tr key={`${id}-json`} class="cat-json-row">
                  <td colSpan={kind.columns.length + 1}>
                    <Json value={entry} label={`JSON of ${id}`} />
                  </td>
                </tr>,
              );
            return rows;
          })}
        </tbody>
      </table>
    </div>
  );
}
