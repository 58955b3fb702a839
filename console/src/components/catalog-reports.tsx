// The catalog page's reports: compatibility (installed, or a dry run of an upload), prune, and a
// publish problem with the compatibility report a 409 carries.
import { ApiError } from "../api";
import type { CompatibilityReport, PruneReport } from "../types";
import { Chips, ErrorNote } from "./common";
import { DataTable } from "./data-table";

const VERDICTS: Record<string, { tone: string; text: string }> = {
  invisible: {
    tone: "tone-good",
    text: "No stored record is read differently: no collection a stored record was written under changes its contract (new collections, views, artifacts, processors, profiles and tools change none).",
  },
  additive: {
    tone: "tone-info",
    text: "Stored records still satisfy the changed contracts; they move forward when it is published.",
  },
  reinterpreting: {
    tone: "tone-bad",
    text: "The change would reinterpret stored records: it cannot be published.",
  },
};

/** A compatibility verdict in words. */
export function verdictText(verdict: string): string {
  return VERDICTS[verdict]?.text ?? "";
}

function VerdictBadge(props: { verdict: string; testid?: string }) {
  return (
    <span class={`badge ${VERDICTS[props.verdict]?.tone ?? ""}`} data-testid={props.testid}>
      {props.verdict}
    </span>
  );
}

export function CompatibilityView(props: { report: CompatibilityReport; label?: string }) {
  const { report } = props;
  const changes = report.changes ?? [];
  return (
    <section class="cat-report" aria-label={props.label ?? "Compatibility report"}>
      <p class="cat-verdict">
        <VerdictBadge verdict={report.verdict} testid="verdict" />{" "}
        <strong class={report.publishable ? "ok" : "alert"} data-testid="publishable">
          {report.publishable ? "publishable" : "not publishable"}
        </strong>{" "}
        <span class="muted">{VERDICTS[report.verdict]?.text ?? ""}</span>
      </p>
      <CatalogWarnings warnings={report.warnings} />
      <h3>Blockers ({report.blockers.length})</h3>
      {report.blockers.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <DataTable
          label="Blockers"
          columns={["Records protected", { label: "Count", num: true }, "Reason", "What fixes it"]}
        >
          {report.blockers.map((blocker, i) => (
            <tr key={i}>
              <td>
                {blocker.records.collection}@{blocker.records.version}{" "}
                <code class="muted" title={blocker.records.contract_hash}>
                  {blocker.records.contract_hash.slice(0, 12)}
                </code>
              </td>
              <td class="num">{blocker.records.count}</td>
              <td class="error-text">{blocker.reason}</td>
              <td>{blocker.action}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <h3>Changed collection contracts ({changes.length})</h3>
      {changes.length === 0 ? (
        <p class="muted">None: every collection with stored records keeps its contract.</p>
      ) : (
        <DataTable
          label="Changed collection contracts"
          columns={["Collection", { label: "Records", num: true }, "Verdict", "Reason"]}
        >
          {changes.map((change, i) => (
            <tr key={i}>
              <td>
                {change.collection}@{change.version}
              </td>
              <td class="num">{change.count}</td>
              <td>
                <VerdictBadge verdict={change.verdict} />
              </td>
              <td>{change.reason}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** What installs but will refuse (docs/api.md "Catalog"): shown before and after a publish. */
export function CatalogWarnings(props: { warnings?: string[] }) {
  const warnings = props.warnings ?? [];
  if (warnings.length === 0) return null;
  return (
    <section class="cat-warnings" aria-label="Warnings">
      <h3>Warnings ({warnings.length})</h3>
      <ul>
        {warnings.map((warning) => (
          <li key={warning} class="warning-text">
            {warning}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function PruneView(props: { report: PruneReport }) {
  const { report } = props;
  return (
    <>
      <p class="muted">
        Definitions of the installed upload ({report.package}) that the package does not list, and listed
        collection versions that are not active. One is safe to delete when no stored record carries its
        contract and no listed definition binds it. Nothing here deletes anything.
      </p>
      {report.candidates.length === 0 ? (
        <p data-testid="prune-empty">
          Nothing to prune: every definition of the upload is listed and in use.
        </p>
      ) : (
        <DataTable
          label="Prune candidates"
          columns={["Definition", "Listed", "Referenced by", "Reference kind", "Safe to delete"]}
        >
          {report.candidates.map((candidate) => (
            <tr key={candidate.definition}>
              <td>
                <code>{candidate.definition}</code>
              </td>
              <td>{candidate.listed ? "yes" : "no"}</td>
              <td>
                {candidate.references.length === 0 ? (
                  <span class="muted">nothing</span>
                ) : (
                  <ul class="plain-list">
                    {candidate.references.map((reference) => (
                      <li key={reference}>
                        <code>{reference}</code>
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td>{candidate.reference_kind}</td>
              <td class={candidate.safe_to_delete ? "ok" : "alert"}>
                {candidate.safe_to_delete ? "yes" : "no"}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h3>Safe to delete ({report.safe_to_delete.length})</h3>
      <Chips names={report.safe_to_delete} label="Safe to delete" />
    </>
  );
}

/** A refused publish or dry run: its detail, and the compatibility report a 409 carries. */
export function PublishProblem(props: { error: unknown }) {
  const { error } = props;
  if (!error) return null;
  const report =
    error instanceof ApiError ? (error.problem.compatibility as CompatibilityReport | undefined) : undefined;
  return (
    <>
      <ErrorNote error={error} />
      {report ? (
        <CompatibilityView report={report} label="Compatibility report of the refused publish" />
      ) : null}
    </>
  );
}
