// The worker page's jobs: filtered by state and kind (both in the URL), newest first, paged by
// the API's cursor; a dead job can be retried behind a confirmation.
import { api } from "../api";
import { useReadOnly, writeControl } from "../read-only";
import { navigate, type Route, withQuery } from "../router";
import type { Job, JobPage } from "../types";
import { LoadStatus, Pager, RefreshButton, Section } from "./common";
import { ActionConfirm, ActionOutcome, useConfirmedAction } from "./confirmed-action";
import { DataTable } from "./data-table";
import { OptionSelect } from "./form-inputs";
import { RunLink, StateBadge } from "./records-links";
import { When } from "./time";
import { useApi, useLiveReload } from "./use-api";
import { ErrorCell, ShortId } from "./worker-format";

export const JOB_STATES: Job["state"][] = ["queued", "running", "succeeded", "dead", "cancelled"];
/** The kinds the worker runs (src/deps.ts); another kind in the URL is offered too. */
const JOB_KINDS = ["enrich", "derive", "backfill", "reindex", "index_delete"];
const PAGE_SIZE = 25;
/** The list's filters, each a query parameter chosen in a select. */
const FILTERS = [
  { key: "state", label: "State", options: JOB_STATES },
  { key: "kind", label: "Kind", options: JOB_KINDS },
];

const COLUMNS = [
  "State",
  "Kind",
  "Job",
  { label: "Attempts", num: true },
  "Lease",
  "Last error",
  "Created",
  "Finished / due",
  { label: "Actions", hidden: true },
];

export function JobsSection(props: { route: Route }) {
  const { route } = props;
  const state = route.query.get("state") ?? "";
  const kind = route.query.get("kind") ?? "";
  const before = route.query.get("before") ?? "";
  const jobs = useApi(
    (signal) => api<JobPage>("GET", "/jobs", { query: { state, kind, before, limit: PAGE_SIZE }, signal }),
    [state, kind, before],
  );
  useLiveReload(jobs.reload);
  const retry = useConfirmedAction(async (job: Job) => {
    const requeued = await api<Job>("POST", `/jobs/${encodeURIComponent(job.id)}/retry`);
    return `Job ${job.kind} ${job.id.slice(0, 8)} is ${requeued.state} again.`;
  }, jobs.reload);

  const filter = (changes: Record<string, string | undefined>) => {
    retry.clearNotice();
    navigate(withQuery(route, { ...changes, before: undefined }));
  };

  return (
    <Section title="Jobs" actions={<RefreshButton of={jobs} label="Refresh jobs" />}>
      <div class="field-row wk-filters">
        {FILTERS.map((f) => (
          <OptionSelect
            key={f.key}
            id={`job-${f.key}`}
            label={f.label}
            value={route.query.get(f.key) || undefined}
            options={f.options}
            unset={`any ${f.key}`}
            onChange={(value) => filter({ [f.key]: value })}
          />
        ))}
      </div>
      <LoadStatus of={jobs} />
      <ActionOutcome action={retry} />
      {jobs.data && jobs.data.jobs.length === 0 ? (
        <p class="muted">{`No ${[state, kind, "jobs"].filter(Boolean).join(" ")}${before ? " on this page" : ""}.`}</p>
      ) : null}
      {jobs.data && jobs.data.jobs.length > 0 ? (
        <DataTable label="Jobs" class="wk-table" columns={COLUMNS}>
          {jobs.data.jobs.map((job) => (
            <JobRow key={job.id} job={job} onRetry={retry.ask} />
          ))}
        </DataTable>
      ) : null}
      {jobs.data ? (
        <Pager
          label="Jobs"
          next={jobs.data.next_before}
          onNext={() => navigate(withQuery(route, { before: jobs.data?.next_before }))}
          onFirst={before ? () => navigate(withQuery(route, { before: undefined })) : undefined}
        />
      ) : null}
      <ActionConfirm action={retry} title="Retry this dead job?" confirmLabel="Retry job">
        {(job) => (
          <p>
            The {job.kind} job <code>{job.id}</code> goes back to the queue with its attempts reset to 0, and
            the worker runs it again.
            {job.last_error ? (
              <>
                {" "}
                It last failed with: <q>{job.last_error}</q>
              </>
            ) : null}
          </p>
        )}
      </ActionConfirm>
    </Section>
  );
}

function JobRow(props: { job: Job; onRetry: (job: Job) => void }) {
  const readOnly = useReadOnly();
  const { job } = props;
  return (
    <tr class={job.state === "dead" ? "wk-dead" : undefined} data-job={job.id}>
      <td>
        <StateBadge state={job.state} />
      </td>
      <td>{job.kind}</td>
      <td>
        <ShortId id={job.id} />
        {job.successful_run_id ? (
          <div>
            <RunLink id={job.successful_run_id} />
          </div>
        ) : null}
      </td>
      <td class="num">
        {job.attempts}/{job.max_attempts}
      </td>
      <td>
        {job.lease ? (
          <>
            <code>{job.lease.owner}</code>
            <div class="muted">
              expires <When at={job.lease.expires_at} />
            </div>
          </>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <ErrorCell error={job.last_error} />
      <td>
        <When at={job.created_at} />
      </td>
      <td>
        {job.finished_at ? (
          <When at={job.finished_at} />
        ) : job.state === "queued" ? (
          <>
            due <When at={job.run_after} />
          </>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td>
        {job.state === "dead" ? (
          <button
            type="button"
            {...writeControl(readOnly)}
            onClick={() => props.onRetry(job)}
            aria-label={`Retry ${job.kind} job ${job.id.slice(0, 8)}`}
          >
            Retry
          </button>
        ) : null}
      </td>
    </tr>
  );
}
