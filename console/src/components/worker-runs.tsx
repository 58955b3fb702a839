// The worker page's derivation runs (GET /runs), newest first, filtered by status, derivation and
// entity (run_status, run_processor, run_entity in the URL), paged by before_seq (run_before).
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { href, navigate, type Route, withQuery } from "../router";
import type { RunList } from "../types";
import { LoadStatus, Pager, RefreshButton, Section } from "./common";
import { DataTable } from "./data-table";
import { OptionSelect, TextInput } from "./form-inputs";
import { Link } from "./link";
import { EntityLink, StateBadge } from "./records-links";
import { duration, When } from "./time";
import { useApi, useLiveReload } from "./use-api";

const RUN_STATUSES = ["running", "succeeded", "failed", "skipped"];
const PAGE_SIZE = 20;

const COLUMNS = [
  "Run",
  "Status",
  "Derivation",
  "Entity",
  "Source",
  { label: "Outputs", num: true },
  "Started",
  "Took",
];

/**
 * The scheduled derivations whose last runs all failed under their definition: their ticks queue
 * nothing until a run succeeds or a publish changes the definition (docs/catalog.md "Triggers").
 */
function PausedSchedules(props: { paused: RunList["paused"] }) {
  if (props.paused.length === 0) return null;
  return (
    <div class="error" role="alert" aria-label="Paused schedules">
      <p>
        Paused schedules: their ticks queue nothing until a run succeeds or a publish changes the derivation.
      </p>
      <ul>
        {props.paused.map((pause) => (
          <li key={pause.derivation}>
            <strong>{pause.derivation}</strong>: its last {pause.failed_runs} runs failed
            {pause.last_failure ? ` (last: ${pause.last_failure})` : ""}, paused since{" "}
            <When at={pause.since} />.{" "}
            <Link href={href("/worker", { run_processor: pause.derivation, run_status: "failed" })}>
              Its failed runs
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function RunsSection(props: { route: Route }) {
  const { route } = props;
  const status = route.query.get("run_status") ?? "";
  const processor = route.query.get("run_processor") ?? "";
  const entity = route.query.get("run_entity") ?? "";
  const before = route.query.get("run_before") ?? "";
  const runs = useApi(
    (signal) =>
      api<RunList>("GET", "/runs", {
        query: { status, processor, entity, before_seq: before, limit: PAGE_SIZE },
        signal,
      }),
    [status, processor, entity, before],
  );
  useLiveReload(runs.reload);
  // The text filters apply on submit; the URL stays the truth after a reload or back.
  const [draft, setDraft] = useState({ processor, entity });
  useEffect(() => setDraft({ processor, entity }), [processor, entity]);
  const filter = (changes: Record<string, string | undefined>) =>
    navigate(withQuery(route, { ...changes, run_before: undefined }));

  return (
    <Section title="Derivation runs" actions={<RefreshButton of={runs} label="Refresh runs" />}>
      <form
        class="field-row wk-filters"
        onSubmit={(event) => {
          event.preventDefault();
          filter({ run_processor: draft.processor.trim(), run_entity: draft.entity.trim() });
        }}
      >
        <OptionSelect
          id="run-status"
          label="Run status"
          value={status || undefined}
          options={RUN_STATUSES}
          unset="any status"
          onChange={(value) => filter({ run_status: value })}
        />
        <TextInput
          id="run-processor"
          label="Derivation"
          value={draft.processor}
          placeholder="any"
          onChange={(value) => setDraft({ ...draft, processor: value ?? "" })}
        />
        <TextInput
          id="run-entity"
          label="Entity"
          value={draft.entity}
          placeholder="any"
          onChange={(value) => setDraft({ ...draft, entity: value ?? "" })}
        />
        <div class="field wk-filter-submit">
          <button type="submit">Filter runs</button>
        </div>
      </form>
      <LoadStatus of={runs} />
      {runs.data ? <PausedSchedules paused={runs.data.paused} /> : null}
      {runs.data && runs.data.runs.length === 0 ? <p class="muted">No runs match.</p> : null}
      {runs.data && runs.data.runs.length > 0 ? (
        <DataTable label="Derivation runs" class="wk-table" columns={COLUMNS}>
          {runs.data.runs.map((run) => (
            <tr key={run.id} class={run.status === "failed" ? "wk-dead" : undefined}>
              <td>
                <Link href={href("/run", { id: run.id })}>run #{run.seq}</Link>
              </td>
              <td>
                <StateBadge state={run.status} />
                {run.failure ? <div class="error-text">{run.failure}</div> : null}
              </td>
              <td>
                {run.derivation}
                {run.operation === "promote" ? <span class="badge">promote</span> : null}
              </td>
              <td>
                <EntityLink entity={run.entity} />
              </td>
              <td>{run.source_kind ?? <span class="muted">—</span>}</td>
              <td class="num">{run.output_count}</td>
              <td>
                <When at={run.started_at} />
              </td>
              <td>{duration(run.started_at, run.finished_at)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {runs.data ? (
        <Pager
          label="Runs"
          next={runs.data.next_before_seq}
          onNext={() => navigate(withQuery(route, { run_before: runs.data?.next_before_seq }))}
          onFirst={before ? () => navigate(withQuery(route, { run_before: undefined })) : undefined}
        />
      ) : null}
    </Section>
  );
}
