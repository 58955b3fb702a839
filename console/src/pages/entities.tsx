import { api } from "../api";
import { LoadStatus, Pager } from "../components/common";
import { DataTable } from "../components/data-table";
import { Link } from "../components/link";
import { Age } from "../components/time";
import { useApi } from "../components/use-api";
import { href, navigate, type Route } from "../router";
import type { EntityList } from "../types";

const PAGE_SIZE = 50;

/** /console/entities?prefix=&after= — the workspace's entities by name, paged by the next_after cursor. */
export function EntitiesPage(props: { route: Route }) {
  const prefix = props.route.query.get("prefix") ?? "";
  const after = props.route.query.get("after") ?? "";
  const list = useApi(
    (signal) =>
      api<EntityList>("GET", "/entities", {
        query: { prefix: prefix || undefined, after: after || undefined, limit: PAGE_SIZE },
        signal,
      }),
    [prefix, after],
  );
  const rows = list.data?.entities ?? [];
  return (
    <>
      <h1>Entities</h1>
      <div class="card">
        <form
          class="field-row"
          onSubmit={(event) => {
            event.preventDefault();
            list.reload();
          }}
        >
          <div class="field entities-filter">
            <label for="entity-prefix">Filter by name prefix</label>
            <input
              id="entity-prefix"
              type="search"
              spellcheck={false}
              autoComplete="off"
              placeholder="e.g. cust-"
              value={prefix}
              // A new prefix starts again at the first page; typing replaces the history entry.
              onInput={(event) => navigate(href("/entities", { prefix: event.currentTarget.value }), true)}
            />
          </div>
        </form>
        <LoadStatus of={list} />
        {list.data ? (
          <>
            <p class="muted" aria-live="polite">
              {rows.length === 0
                ? prefix
                  ? `No entity starts with “${prefix}”.`
                  : "No entities yet."
                : `${after ? `After “${after}”: ` : ""}${rows.length} entit${rows.length === 1 ? "y" : "ies"}${
                    list.data.next_after ? " on this page" : ""
                  }${list.loading ? " (updating…)" : ""}`}
            </p>
            {rows.length > 0 ? (
              <DataTable
                label="Entities"
                class="entities-table"
                columns={[
                  "Entity",
                  { label: "Records", num: true },
                  "Last activity",
                  { label: "Last seq", num: true },
                  { label: "Actions", hidden: true },
                ]}
              >
                {rows.map((row) => (
                  <tr key={row.entity}>
                    <td class="entity-name">
                      <Link href={href("/entity", { entity: row.entity })}>{row.entity}</Link>
                    </td>
                    <td class="num" data-testid="entity-records">
                      {row.records}
                    </td>
                    <td>
                      <Age at={row.last_at} />
                    </td>
                    <td class="num">{row.last_seq}</td>
                    <td class="row-actions">
                      <Link href={href("/entity", { entity: row.entity, tab: "timeline" })}>
                        Timeline<span class="sr-only"> of {row.entity}</span>
                      </Link>
                    </td>
                  </tr>
                ))}
              </DataTable>
            ) : null}
            <Pager
              label="Entities"
              next={list.data.next_after}
              onNext={() => navigate(href("/entities", { prefix, after: list.data?.next_after }))}
              onFirst={after ? () => navigate(href("/entities", { prefix })) : undefined}
            />
          </>
        ) : null}
      </div>
    </>
  );
}
