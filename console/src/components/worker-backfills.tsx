// The worker page's backfills (GET /backfill: the 50 most recent), with Cancel on a queued or live
// one behind a confirmation.
import { api } from "../api";
import { useReadOnly, writeControl } from "../read-only";
import type { Backfill } from "../types";
import { LoadStatus, RefreshButton, Section } from "./common";
import { ActionConfirm, ActionOutcome, useConfirmedAction } from "./confirmed-action";
import { DataTable } from "./data-table";
import { StateBadge } from "./records-links";
import { When } from "./time";
import { useApi, useLiveReload } from "./use-api";
import { ErrorCell } from "./worker-format";

const target = (b: Backfill) => `${b.processor} over ${b.collection}@${b.version}`;
const running = (b: Backfill) => b.state === "queued" || b.state === "live";

const COLUMNS = [
  "State",
  "Processor",
  "Collection",
  { label: "Scanned", num: true },
  { label: "Annotated", num: true },
  { label: "Cursor seq", num: true },
  { label: "Max rows", num: true },
  "Last error",
  "Updated",
  { label: "Actions", hidden: true },
];

export function BackfillsSection() {
  const readOnly = useReadOnly();
  const backfills = useApi((signal) => api<{ backfills: Backfill[] }>("GET", "/backfill", { signal }), []);
  useLiveReload(backfills.reload);
  const cancel = useConfirmedAction(async (backfill: Backfill) => {
    await api("POST", `/backfill/${encodeURIComponent(backfill.id)}/cancel`);
    return `The backfill of ${target(backfill)} stops at its next batch boundary.`;
  }, backfills.reload);

  const list = backfills.data?.backfills;
  return (
    <Section title="Backfills" actions={<RefreshButton of={backfills} label="Refresh backfills" />}>
      <LoadStatus of={backfills} />
      <ActionOutcome action={cancel} />
      {list && list.length === 0 ? <p class="muted">No backfills yet (POST /backfill starts one).</p> : null}
      {list && list.length > 0 ? (
        <DataTable label="Backfills" class="wk-table" columns={COLUMNS}>
          {list.map((b) => (
            <tr key={b.id} class={b.state === "failed" ? "wk-dead" : undefined}>
              <td>
                <StateBadge state={b.state} />
                {b.cancel_requested && running(b) ? <div class="muted">cancel requested</div> : null}
              </td>
              <td>{b.processor}</td>
              <td>
                {b.collection}@{b.version}
              </td>
              <td class="num">{b.scanned}</td>
              <td class="num">{b.annotated}</td>
              <td class="num">{b.cursor_seq}</td>
              <td class="num">{b.max_rows ?? "∞"}</td>
              <ErrorCell error={b.last_error} />
              <td>
                <When at={b.updated_at ?? b.created_at} />
              </td>
              <td>
                {running(b) && !b.cancel_requested ? (
                  <button
                    type="button"
                    {...writeControl(readOnly)}
                    onClick={() => cancel.ask(b)}
                    aria-label={`Cancel backfill of ${target(b)}`}
                  >
                    Cancel
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <ActionConfirm action={cancel} title="Cancel this backfill?" confirmLabel="Cancel backfill">
        {(b) => (
          <p>
            The backfill of {target(b)} stops at its next batch boundary. The {b.annotated} annotations it
            already wrote are kept.
          </p>
        )}
      </ActionConfirm>
    </Section>
  );
}
