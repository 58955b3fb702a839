// /console/worker: jobs (state and kind filters, retry a dead job), derivation runs and
// backfills. /console/run?id=…: one derivation run's audit.
import { api } from "../api";
import { Json, LoadStatus } from "../components/common";
import { Link } from "../components/link";
import { StateBadge } from "../components/records-links";
import { useApi } from "../components/use-api";
import { BackfillsSection } from "../components/worker-backfills";
import { JobsSection } from "../components/worker-jobs";
import {
  CandidateSet,
  Emission,
  EmittedRecords,
  ReadReceipt,
  RunFacts,
  RunHashes,
  TriggerReasons,
  VisibleSources,
} from "../components/worker-run-audit";
import { RunsSection } from "../components/worker-runs";
import { href, navigate, type Route, withQuery } from "../router";
import type { RunDetail } from "../types";

export function WorkerPage(props: { route: Route }) {
  return (
    <>
      <h1>Worker</h1>
      <JobsSection route={props.route} />
      <RunsSection route={props.route} />
      <BackfillsSection />
    </>
  );
}

/** Emitted records per page of the run page. */
const OUTPUT_LIMIT = 50;

export function RunPage(props: { route: Route }) {
  const { route } = props;
  const id = route.query.get("id")?.trim() ?? "";
  const offset = Math.max(0, Number.parseInt(route.query.get("output_offset") ?? "0", 10) || 0);
  const run = useApi(
    (signal) =>
      id
        ? api<RunDetail>("GET", `/runs/${encodeURIComponent(id)}`, {
            query: { output_offset: offset, output_limit: OUTPUT_LIMIT },
            signal,
          })
        : Promise.resolve(undefined),
    [id, offset],
  );
  const r = run.data;
  return (
    <>
      <p class="wk-back">
        <Link href={href("/worker")}>← Worker</Link>
      </p>
      <h1>
        Derivation run{r ? ` #${r.seq}` : ""} {r ? <StateBadge state={r.status} /> : null}
      </h1>
      {!id ? (
        <p class="muted">
          No run named: pick one under <Link href={href("/worker")}>Derivation runs</Link>.
        </p>
      ) : null}
      <LoadStatus of={run} />
      {r && r.id === id.toLowerCase() ? (
        <>
          <p class="wk-lede">
            {r.operation === "promote" ? "Promotion" : "Run"} of <strong>{r.derivation}</strong> for{" "}
            <Link href={href("/entity", { entity: r.entity })}>{r.entity}</Link>
            {r.failure ? (
              <>
                {" "}
                — <span class="error-text">failed ({r.failure})</span>
              </>
            ) : null}
          </p>
          <div class="wk-pair">
            <RunFacts run={r} />
            <div>
              <TriggerReasons run={r} />
              <RunHashes run={r} />
            </div>
          </div>
          <div class="wk-pair">
            <ReadReceipt run={r} />
            <CandidateSet run={r} />
          </div>
          <div class="wk-pair">
            <Emission run={r} />
            <VisibleSources run={r} />
          </div>
          <EmittedRecords
            run={r}
            onPage={(next) => navigate(withQuery(route, { output_offset: next || undefined }))}
          />
          <details class="wk-raw card">
            <summary>Raw JSON of this page of the run</summary>
            <Json value={r} label="The run as GET /runs/{id} answered it" />
          </details>
        </>
      ) : null}
    </>
  );
}
