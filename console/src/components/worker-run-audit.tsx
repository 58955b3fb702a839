// The sections of a derivation run's audit (GET /runs/{id}): why it ran, what it read, what it
// proposed against the live heads, and what it wrote. Runs never hold prompts or model replies.
import type { ComponentChildren } from "preact";
import type { EmissionView, ReceiptHead, ReceiptView, RunDetail, VisibleSourceView } from "../types";
import { Chips, Json, Section } from "./common";
import { DataTable } from "./data-table";
import { EntityLink, RecordFlags, RecordLink, RecordLinks, RunLink, StateBadge } from "./records-links";
import { duration, When } from "./time";
import { ShortId } from "./worker-format";

function Facts(props: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {props.rows.map(([term, value]) => [
        <dt key={`${term}-t`}>{term}</dt>,
        <dd key={`${term}-d`}>{value}</dd>,
      ])}
    </dl>
  );
}

/** The badge tone of a candidate set's change to a key. */
const CHANGE_TONES: Record<string, string> = {
  added: "tone-info",
  removed: "tone-bad",
  changed: "tone-warn",
};

const yesNo = (value: boolean | undefined) => (value === undefined ? "—" : value ? "yes" : "no");

export function RunFacts(props: { run: RunDetail }) {
  const { run } = props;
  const usage = run.model_usage ?? {};
  return (
    <Section title="Run">
      <Facts
        rows={[
          ["Id", <code key="id">{run.id}</code>],
          ["Derivation", run.derivation],
          ["Entity", <EntityLink key="e" entity={run.entity} />],
          ["Operation", run.operation],
          ["Source", run.source_kind ?? "—"],
          ["Status", <StateBadge key="s" state={run.status} />],
          ...(run.failure
            ? ([
                [
                  "Failure",
                  <span key="f" class="error-text">
                    {run.failure}
                    {run.failure_detail ? `: ${run.failure_detail}` : ""}
                  </span>,
                ],
              ] as [string, ComponentChildren][])
            : []),
          ["Job", <ShortId key="j" id={run.job_id} />],
          ...(run.source_run_id
            ? ([["Promotes run", <RunLink key="r" id={run.source_run_id} />]] as [
                string,
                ComponentChildren,
              ][])
            : []),
          ["Started", <When key="st" at={run.started_at} />],
          ["Took", duration(run.started_at, run.finished_at)],
          [
            "Model usage",
            `${usage.calls ?? 0} call(s), ${usage.prompt_tokens ?? 0} prompt + ${usage.completion_tokens ?? 0} completion tokens`,
          ],
        ]}
      />
    </Section>
  );
}

export function RunHashes(props: { run: RunDetail }) {
  const { run } = props;
  return (
    <Section title="Catalog">
      <Facts
        rows={[
          ["Package", run.package],
          [
            "Catalog hash",
            <code key="c" class="hash">
              {run.catalog_hash}
            </code>,
          ],
          [
            "Definition hash",
            <code key="d" class="hash">
              {run.definition_hash}
            </code>,
          ],
          [
            "Model config hash",
            <code key="m" class="hash">
              {run.config_hash}
            </code>,
          ],
        ]}
      />
    </Section>
  );
}

export function TriggerReasons(props: { run: RunDetail }) {
  const reasons = props.run.content.trigger_reasons ?? [];
  return (
    <Section title="Trigger reasons">
      {reasons.length === 0 ? (
        <p class="muted">No reason recorded.</p>
      ) : (
        <DataTable label="Trigger reasons" columns={["On", "Trigger", "Details"]}>
          {reasons.map((reason, i) => {
            const { on, trigger, ...rest } = reason;
            return (
              <tr key={i}>
                <td>
                  <span class="badge">{on}</span>
                </td>
                <td>{trigger ?? <span class="muted">— (requested directly)</span>}</td>
                <td>{Object.keys(rest).length > 0 ? <code>{JSON.stringify(rest)}</code> : null}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </Section>
  );
}

function HeadsTable(props: { heads: ReceiptHead[]; label: string }) {
  if (props.heads.length === 0) return <p class="muted">None.</p>;
  return (
    <DataTable label={props.label} columns={["Collection", "Key", "Head record"]}>
      {props.heads.map((head) => (
        <tr key={`${head.collection}/${head.key}`}>
          <td>{head.collection ?? "—"}</td>
          <td>
            <code>{head.key}</code>
          </td>
          <td>{head.record_id ? <RecordLink id={head.record_id} /> : <span class="muted">none yet</span>}</td>
        </tr>
      ))}
    </DataTable>
  );
}

export function ReadReceipt(props: { run: RunDetail }) {
  const receipt = props.run.read_receipt as ReceiptView | null;
  if (!receipt)
    return (
      <Section title="Read receipt">
        <p class="muted">The run stopped before it read anything.</p>
      </Section>
    );
  const { heads, sources, watermark_from, watermark_to, checkpoint_seq, generation, ...rest } = receipt;
  return (
    <Section title="Read receipt">
      <Facts
        rows={[
          ["Watermark", `seq ${watermark_from ?? "—"} → ${watermark_to ?? "—"}`],
          ["Checkpoint seq", String(checkpoint_seq ?? "—")],
          ["Generation", String(generation ?? "—")],
        ]}
      />
      <h3>Sources read</h3>
      {sources && sources.length > 0 ? (
        <DataTable
          label="Sources read"
          columns={[
            "Source",
            "Kind",
            { label: "Records", num: true },
            { label: "Tokens", num: true },
            "Truncated",
          ]}
        >
          {sources.map((source) => (
            <tr key={source.name}>
              <td>{source.name}</td>
              <td>{source.kind}</td>
              <td class="num">{source.record_count ?? "—"}</td>
              <td class="num">{source.tokens ?? "—"}</td>
              <td class={source.truncated ? "alert" : undefined}>{yesNo(source.truncated)}</td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p class="muted">No sources.</p>
      )}
      <h3>Heads read</h3>
      <HeadsTable heads={heads ?? []} label="Heads read" />
      {Object.keys(rest).length > 0 ? (
        <details class="more">
          <summary>Other receipt fields</summary>
          <Json value={rest} label="Other read receipt fields" />
        </details>
      ) : null}
    </Section>
  );
}

/** Record ids, the first `max` as links and the rest behind a disclosure. */
function IdList(props: { ids: string[]; label: string; max?: number }) {
  const max = props.max ?? 24;
  if (props.ids.length <= max) return <RecordLinks ids={props.ids} label={props.label} />;
  return (
    <>
      <RecordLinks ids={props.ids.slice(0, max)} label={props.label} />
      <details class="more">
        <summary>{props.ids.length - max} more</summary>
        <RecordLinks ids={props.ids.slice(max)} label={`${props.label} (more)`} />
      </details>
    </>
  );
}

export function VisibleSources(props: { run: RunDetail }) {
  const sources = props.run.visible_sources as VisibleSourceView[];
  return (
    <Section title="Visible evidence">
      <p class="muted">
        The records the run showed the model, by source; emitted records may cite only these.
      </p>
      {sources.length === 0 ? <p class="muted">None.</p> : null}
      {sources.map((source) => (
        <div key={source.source} class="wk-source">
          <h3>
            {source.source}{" "}
            <span class="muted">
              ({source.kind}, {source.record_ids.length} record{source.record_ids.length === 1 ? "" : "s"})
            </span>
          </h3>
          <IdList ids={source.record_ids} label={`Records visible from ${source.source}`} />
        </div>
      ))}
      <h3>Cited by the output ({props.run.citations.length})</h3>
      <IdList ids={props.run.citations} label="Citations" />
    </Section>
  );
}

export function CandidateSet(props: { run: RunDetail }) {
  const { run } = props;
  const set = run.content.candidate_set ?? { covered_keys: [], divergence: [] };
  return (
    <Section title="Candidate set and divergence">
      <h3>Covered keys</h3>
      <Chips names={set.covered_keys} label="Covered keys" />
      <h3>Divergence from the live heads</h3>
      {set.divergence.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <DataTable label="Divergence" columns={["Key", "Change"]}>
          {set.divergence.map((entry) => (
            <tr key={entry.key}>
              <td>
                <code>{entry.key}</code>
              </td>
              <td>
                <span class={`badge ${CHANGE_TONES[entry.change] ?? ""}`}>{entry.change}</span>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h3>Expected active heads</h3>
      <HeadsTable heads={run.expected_active_heads ?? []} label="Expected active heads" />
      {run.keyed_divergence && run.keyed_divergence.length > 0 ? (
        <>
          <h3>Keyed divergence at promotion</h3>
          <DataTable label="Keyed divergence" columns={["Key", "Expected head", "Actual head"]}>
            {run.keyed_divergence.map((entry) => (
              <tr key={entry.key}>
                <td>
                  <code>{entry.key}</code>
                </td>
                <td>{entry.expected_record_id ? <RecordLink id={entry.expected_record_id} /> : "none"}</td>
                <td>{entry.actual_record_id ? <RecordLink id={entry.actual_record_id} /> : "none"}</td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
    </Section>
  );
}

export function Emission(props: { run: RunDetail }) {
  const emission = props.run.emission as EmissionView;
  const rejected = emission.rejected ?? [];
  if (!emission.collection && rejected.length === 0)
    return (
      <Section title="Emission">
        <p class="muted">The run emitted nothing.</p>
      </Section>
    );
  return (
    <Section title="Emission">
      <Facts
        rows={[
          ["Collection", emission.collection ?? "—"],
          ["Type", emission.type ?? "—"],
          ["Keys", (emission.keys ?? []).join(", ") || "any"],
          ["Complete", yesNo(emission.complete)],
          ["Review", emission.review ?? "—"],
        ]}
      />
      <h3>Rejected output rows ({rejected.length})</h3>
      {rejected.length === 0 ? (
        <p class="muted">
          {props.run.status === "succeeded" ? "None: every row the model proposed was kept." : "None."}
        </p>
      ) : (
        <DataTable label="Rejected output rows" columns={[{ label: "Row", num: true }, "Key", "Reason"]}>
          {rejected.map((row) => (
            <tr key={row.index}>
              <td class="num">{row.index}</td>
              <td>{row.key ? <code>{row.key}</code> : <span class="muted">—</span>}</td>
              <td class="error-text">{row.reason}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </Section>
  );
}

export function EmittedRecords(props: { run: RunDetail; onPage: (offset: number) => void }) {
  const { run } = props;
  const first = run.output_offset + 1;
  const last = run.output_offset + run.records.length;
  return (
    <Section title={`Emitted records (${run.output_total})`}>
      {run.output_total === 0 ? (
        <p class="muted">The run wrote no records.</p>
      ) : (
        <>
          <p class="muted">
            Records {first}–{last} of {run.output_total}, in emission order.
          </p>
          <DataTable
            label="Emitted records"
            columns={["Record", "Collection", "Key", "Type", "Text", { label: "Cites", num: true }]}
          >
            {run.records.map((record) => (
              <tr key={record.id}>
                <td>
                  <RecordLink id={record.id} />
                  <RecordFlags status={record.status} ready={record.ready} tombstone={record.tombstone} />
                </td>
                <td>{record.collection}</td>
                <td>{record.key ? <code>{record.key}</code> : <span class="muted">—</span>}</td>
                <td>{record.type}</td>
                <td class="wk-text">{record.text}</td>
                <td class="num">{record.citations.length}</td>
              </tr>
            ))}
          </DataTable>
          {run.output_total > run.output_limit ? (
            <nav class="pager" aria-label="Emitted records pages">
              <button
                type="button"
                disabled={run.output_offset === 0}
                onClick={() => props.onPage(Math.max(0, run.output_offset - run.output_limit))}
              >
                Previous records
              </button>
              <button
                type="button"
                disabled={last >= run.output_total}
                onClick={() => props.onPage(run.output_offset + run.output_limit)}
              >
                Next records
              </button>
            </nav>
          ) : null}
        </>
      )}
    </Section>
  );
}
