// /console/memories: the workspace's records across entities, newest first (GET /records), with
// filters by collection, type, status and creation day, paged by the opaque next_before cursor.
// Every filter and page is in the URL, so each state is a deep link.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { LoadStatus, Pager } from "../components/common";
import { DataTable } from "../components/data-table";
import { EntityLink, RecordRowCells } from "../components/records-links";
import { Age } from "../components/time";
import { useApi } from "../components/use-api";
import { href, navigate, type Route } from "../router";
import type { CollectionsAnswer, RecordsPage } from "../types";

const PAGE_SIZE = 50;
const STATUSES = [
  { value: "all", label: "Active and draft" },
  { value: "active", label: "Active" },
  { value: "draft", label: "Draft" },
];
const FILTERS = ["collection", "type", "status", "from", "to"] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** A day's bounds as GET /records' exclusive created_after / created_before (UTC days). */
function dayBounds(from: string, to: string) {
  const start = DAY.test(from) ? Date.parse(`${from}T00:00:00Z`) - 1 : Number.NaN;
  const end = DAY.test(to) ? Date.parse(`${to}T00:00:00Z`) + DAY_MS : Number.NaN;
  return {
    created_after: Number.isFinite(start) ? new Date(start).toISOString() : undefined,
    created_before: Number.isFinite(end) ? new Date(end).toISOString() : undefined,
  };
}

export function MemoriesPage(props: { route: Route }) {
  const query = props.route.query;
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ""])) as Filters;
  const status = STATUSES.some((s) => s.value === filters.status) ? filters.status : "all";
  const before = query.get("before") ?? "";
  const collections = useApi((signal) => api<CollectionsAnswer>("GET", "/collections", { signal }), []);
  const names = [...new Set((collections.data?.collections ?? []).map((c) => c.name))].sort();
  const page = useApi(
    (signal) =>
      api<RecordsPage>("GET", "/records", {
        query: {
          collection: filters.collection || undefined,
          type: filters.type || undefined,
          status: status === "all" ? undefined : status,
          ...dayBounds(filters.from, filters.to),
          limit: PAGE_SIZE,
          before: before || undefined,
        },
        signal,
      }),
    [filters.collection, filters.type, status, filters.from, filters.to, before],
  );
  /** A filter change starts again at the newest page and replaces the history entry. */
  const go = (changes: Partial<Filters> & { before?: string | null }, replace = false) =>
    navigate(href("/memories", { ...filters, ...changes, before: changes.before ?? undefined }), replace);
  const rows = page.data?.records ?? [];
  // What is typed in the type box is its own until applied: a page arriving meanwhile keeps it.
  const [typed, setTyped] = useState(filters.type);
  useEffect(() => setTyped(filters.type), [filters.type]);
  const filtered = FILTERS.some((name) => filters[name] !== "");
  return (
    <>
      <h1>Memories</h1>
      <div class="card">
        <form
          class="field-row memories-filters"
          onSubmit={(event) => {
            // Enter in the type box applies it (leaving the box does too, by its change event).
            event.preventDefault();
            const typed = event.currentTarget.elements.namedItem("type") as HTMLInputElement | null;
            go({ type: typed?.value.trim() ?? "" }, true);
          }}
        >
          <div class="field">
            <label for="memories-collection">Collection</label>
            <select
              id="memories-collection"
              value={filters.collection}
              onChange={(e) => go({ collection: e.currentTarget.value }, true)}
            >
              <option value="">Every collection</option>
              {names.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="memories-type">Type</label>
            <input
              id="memories-type"
              name="type"
              type="search"
              spellcheck={false}
              autoComplete="off"
              placeholder="e.g. fact"
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
              onChange={(e) => go({ type: e.currentTarget.value.trim() }, true)}
            />
          </div>
          <div class="field">
            <label for="memories-status">Status</label>
            <select
              id="memories-status"
              value={status}
              onChange={(e) => go({ status: e.currentTarget.value }, true)}
            >
              {STATUSES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="memories-from">Written from (UTC day)</label>
            <input
              id="memories-from"
              type="date"
              value={filters.from}
              onChange={(e) => go({ from: e.currentTarget.value }, true)}
            />
          </div>
          <div class="field">
            <label for="memories-to">Written to (UTC day)</label>
            <input
              id="memories-to"
              type="date"
              value={filters.to}
              onChange={(e) => go({ to: e.currentTarget.value }, true)}
            />
          </div>
        </form>
        <LoadStatus of={page} />
        {page.data ? (
          <>
            <p class="muted" aria-live="polite">
              {rows.length === 0
                ? filtered
                  ? "No record matches these filters."
                  : "No records yet."
                : `${rows.length} record${rows.length === 1 ? "" : "s"}, newest first${
                    page.data.next_before || before ? " (one page)" : ""
                  }.`}
              {page.loading ? " Updating…" : ""}
            </p>
            {rows.length > 0 ? (
              <DataTable
                label="Memories"
                class="memories-table"
                columns={["Written", "Entity", "Collection", "Type / key", "Text", "Record"]}
              >
                {rows.map((row) => (
                  <tr key={row.id}>
                    <td class="nowrap">
                      <Age at={row.created_at} />
                    </td>
                    <td class="entity-name">
                      <EntityLink entity={row.entity} />
                    </td>
                    <td>{row.collection}</td>
                    <RecordRowCells entity={row.entity} row={row} />
                  </tr>
                ))}
              </DataTable>
            ) : null}
            <Pager
              label="Memories"
              next={page.data.next_before}
              onNext={() => go({ before: page.data?.next_before })}
              onFirst={before ? () => go({ before: null }) : undefined}
            />
          </>
        ) : null}
      </div>
    </>
  );
}
