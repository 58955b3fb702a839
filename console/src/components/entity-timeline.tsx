// The entity page's Timeline tab: GET /timeline newest first, paged by next_before_seq, with the
// status filter (active, draft or all rows), the system-rows toggle and as_of in the URL.
import { api } from "../api";
import { href, navigate } from "../router";
import type { TimelinePage } from "../types";
import { LoadStatus, Pager } from "./common";
import { DataTable } from "./data-table";
import { RecordRowCells } from "./records-links";
import { Age } from "./time";
import { useApi } from "./use-api";

const PAGE_SIZE = 25;
const STATUSES = [
  { value: "active", label: "Active rows" },
  { value: "draft", label: "Draft rows" },
  { value: "all", label: "Active and draft rows" },
];

export function EntityTimelineTab(props: {
  entity: string;
  status: string;
  system: boolean;
  before: string;
  /** Memory as it was at this moment (ISO 8601), or "" for now. */
  asOf: string;
}) {
  const status = STATUSES.some((s) => s.value === props.status) ? props.status : "active";
  const page = useApi(
    (signal) =>
      api<TimelinePage>("GET", "/timeline", {
        query: {
          entity: props.entity,
          status,
          include_system: props.system ? true : undefined,
          limit: PAGE_SIZE,
          before_seq: props.before || undefined,
          as_of: props.asOf || undefined,
        },
        signal,
      }),
    [props.entity, status, props.system, props.before, props.asOf],
  );
  const go = (
    change: { status?: string; system?: boolean; before?: string | number | null },
    replace = false,
  ) =>
    navigate(
      href("/entity", {
        entity: props.entity,
        tab: "timeline",
        status: (change.status ?? status) === "active" ? undefined : (change.status ?? status),
        system: (change.system ?? props.system) ? "true" : undefined,
        before: change.before === undefined ? props.before : change.before,
        as_of: props.asOf || undefined,
      }),
      replace,
    );
  const rows = page.data?.records ?? [];
  return (
    <section class="card" aria-label="Timeline">
      <div class="field-row timeline-controls">
        <div class="field timeline-status">
          <label for="timeline-status">Status rows</label>
          {/* A filter change starts again at the newest page. */}
          <select
            id="timeline-status"
            value={status}
            onChange={(e) => go({ status: e.currentTarget.value, before: null }, true)}
          >
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label class="check">
            <input
              type="checkbox"
              checked={props.system}
              onChange={(e) => go({ system: e.currentTarget.checked, before: null }, true)}
            />
            Include system rows (erasure and rebind audits)
          </label>
        </div>
      </div>
      <LoadStatus of={page} />
      {page.data ? (
        <>
          <p class="muted" aria-live="polite">
            {rows.length === 0
              ? "No records on this page."
              : `Seq ${rows[0]?.seq} to ${rows[rows.length - 1]?.seq}, newest first${props.before ? ` (before seq ${props.before})` : ""}.`}
            {page.loading ? " Updating…" : ""}
          </p>
          {rows.length > 0 ? (
            <DataTable
              label="Timeline records"
              class="timeline-table"
              columns={[{ label: "Seq", num: true }, "Written", "Collection", "Type / key", "Text", "Record"]}
            >
              {rows.map((row) => (
                <tr key={row.id} class={row.collection === "_system" ? "system-row" : undefined}>
                  <td class="num">{row.seq}</td>
                  <td class="nowrap">
                    <Age at={row.created_at} />
                    {row.occurred_at && row.occurred_at !== row.created_at ? (
                      <div class="muted small">
                        occurred <Age at={row.occurred_at} />
                      </div>
                    ) : null}
                  </td>
                  <td>{row.collection}</td>
                  <RecordRowCells entity={props.entity} row={row} />
                </tr>
              ))}
            </DataTable>
          ) : null}
          <Pager
            label="Timeline"
            next={page.data.next_before_seq}
            onNext={() => go({ before: page.data?.next_before_seq })}
            onFirst={props.before ? () => go({ before: null }) : undefined}
          />
        </>
      ) : null}
    </section>
  );
}
