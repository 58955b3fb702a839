// The entity page's Drafts tab: the draft heads of reviewed derivations (GET /document?status=draft)
// grouped by the run that wrote them, each run with a Promote action (POST /promote) behind Confirm.
import { useState } from "preact/hooks";
import { api } from "../api";
import { useReadOnly, writeControl } from "../read-only";
import { href } from "../router";
import type {
  ArtifactSummary,
  Belief,
  EntityDocument,
  FullRecord,
  PromoteResult,
  RunSummary,
} from "../types";
import { Confirm, ErrorNote, LoadStatus, Section } from "./common";
import { DataTable } from "./data-table";
import { KeyLink, RecordFlags, RecordLink, RecordLinks, RunLink, StateBadge } from "./records-links";
import { Age } from "./time";
import { useApi } from "./use-api";

/** Draft records read one by one for their run id: at most this many (a draft document is small). */
const MAX_DRAFTS = 50;

interface RunGroup {
  runId: string | null;
  run?: RunSummary;
  drafts: Belief[];
}

interface DraftsData {
  groups: RunGroup[];
  more: number;
  active: Map<string, Belief>;
  artifacts: ArtifactSummary[];
  promotions: RunSummary[];
}

async function loadDrafts(entity: string, signal: AbortSignal): Promise<DraftsData> {
  const [drafts, active, artifacts, promotions] = await Promise.all([
    api<EntityDocument>("GET", "/document", { query: { entity, status: "draft" }, signal }),
    api<EntityDocument>("GET", "/document", { query: { entity }, signal }),
    api<{ artifacts: ArtifactSummary[] }>("GET", "/artifacts", { signal }),
    api<{ runs: RunSummary[] }>("GET", "/runs", {
      query: { entity, operation: "promote", limit: 100 },
      signal,
    }),
  ]);
  // A belief carries no run id; the full record does.
  const shown = drafts.beliefs.slice(0, MAX_DRAFTS);
  const records = await Promise.all(
    shown.map((draft) => api<FullRecord>("GET", `/records/${draft.id}`, { signal })),
  );
  const groups = new Map<string, RunGroup>();
  shown.forEach((draft, i) => {
    const runId = records[i]?.run_id ?? null;
    const group = groups.get(runId ?? "") ?? { runId, drafts: [] };
    group.drafts.push(draft);
    groups.set(runId ?? "", group);
  });
  const runs = await Promise.all(
    [...groups.values()].map((group) =>
      group.runId
        ? api<RunSummary>("GET", `/runs/${group.runId}`, { query: { output_limit: 1 }, signal })
        : Promise.resolve(undefined),
    ),
  );
  const list = [...groups.values()].map((group, i) => ({ ...group, run: runs[i] }));
  list.sort((a, b) => (b.run?.seq ?? 0) - (a.run?.seq ?? 0));
  return {
    groups: list,
    more: drafts.beliefs.length - shown.length,
    active: new Map(active.beliefs.map((b) => [`${b.collection}\u0000${b.key}`, b])),
    artifacts: artifacts.artifacts.filter((a) => a.lifecycle === "reviewed" && a.candidate && a.active),
    promotions: promotions.runs,
  };
}

export function EntityDraftsTab(props: { entity: string }) {
  const data = useApi((signal) => loadDrafts(props.entity, signal), [props.entity]);
  const d = data.data;
  return (
    <>
      <LoadStatus of={data} />
      {d && d.groups.length === 0 ? (
        <section class="card" aria-label="Drafts">
          <p class="muted">
            No drafts. A derivation whose emission has <code>review: required</code> writes its output here as
            drafts until it is promoted.
          </p>
        </section>
      ) : null}
      {d?.groups.map((group) => (
        <RunDrafts
          key={group.runId ?? "none"}
          entity={props.entity}
          group={group}
          data={d}
          onPromoted={data.reload}
        />
      ))}
      {d && d.more > 0 ? (
        <p class="muted">{d.more} more drafts are not shown; promote or narrow by collection with the API.</p>
      ) : null}
    </>
  );
}

function RunDrafts(props: { entity: string; group: RunGroup; data: DraftsData; onPromoted: () => void }) {
  const { group, data } = props;
  const run = group.run;
  const artifacts = run ? data.artifacts.filter((a) => a.candidate?.derivation === run.derivation) : [];
  const promotion = data.promotions.find((p) => p.source_run_id === group.runId && p.status === "succeeded");
  const title = run ? `Drafts of ${run.derivation}` : "Drafts without a run";
  const [outcome, setOutcome] = useState<{ result?: PromoteResult; error?: unknown }>({});
  return (
    <Section
      title={title}
      actions={
        run
          ? artifacts.map((artifact) => (
              <Promote
                key={artifact.name}
                entity={props.entity}
                run={run}
                artifact={artifact}
                onOutcome={(next) => {
                  setOutcome(next);
                  if (next.result) props.onPromoted();
                }}
              />
            ))
          : null
      }
    >
      {run ? (
        <dl class="facts run-facts">
          <dt>Run</dt>
          <dd>
            <RunLink id={run.id} /> <StateBadge state={run.status} />{" "}
            <span class="muted">
              started <Age at={run.started_at} />, {run.output_count} output record
              {run.output_count === 1 ? "" : "s"}
            </span>
          </dd>
          <dt>Promotion</dt>
          <dd>
            {promotion ? (
              <>
                <span class="badge fresh">promoted</span> by <RunLink id={promotion.id} />{" "}
                <Age at={promotion.finished_at ?? promotion.started_at} />
              </>
            ) : artifacts.length > 0 ? (
              <span class="muted">
                not promoted; reviewed through artifact{artifacts.length === 1 ? "" : "s"}{" "}
                {artifacts.map((a) => `${a.name}@${a.version}`).join(", ")} (keys{" "}
                {artifacts[0]?.candidate?.keys.join(", ")})
              </span>
            ) : (
              <span class="muted">
                no active reviewed artifact names {run.derivation} as its candidate, so these drafts cannot be
                promoted
              </span>
            )}
          </dd>
        </dl>
      ) : null}
      <div class="promote-outcome" aria-live="polite">
        <ErrorNote error={outcome.error} />
        {outcome.result ? (
          <p class="ok" role="status">
            {outcome.result.already_promoted ? "Already promoted" : "Promoted"}:{" "}
            {outcome.result.promoted.map((p, i) => (
              <span key={p.record_id}>
                {i > 0 ? ", " : ""}
                {p.key} → <RecordLink id={p.record_id} />
              </span>
            ))}
          </p>
        ) : null}
      </div>
      <DataTable
        label={title}
        class="drafts-table"
        columns={["Key", "Draft", "Current active value", "Cites", "Record"]}
      >
        {group.drafts.map((draft) => {
          const live = data.active.get(`${draft.collection}\u0000${draft.key}`);
          return (
            <tr key={draft.id}>
              <td class="key-cell">
                <KeyLink entity={props.entity} collection={draft.collection} keyName={draft.key}>
                  {draft.key}
                </KeyLink>
                <div class="muted small">{draft.collection}</div>
              </td>
              <td class="text-cell">
                {draft.text || <span class="muted">(no text)</span>} <RecordFlags ready={draft.ready} />
              </td>
              <td class="text-cell">
                {live ? (
                  <>
                    {live.text || <span class="muted">(no text)</span>} <RecordLink id={live.id} />
                  </>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
              <td>
                <RecordLinks
                  ids={draft.citations}
                  label={`Records draft ${draft.key} cites`}
                  max={6}
                  more={href("/record", { id: draft.id })}
                />
              </td>
              <td>
                <RecordLink id={draft.id} />
              </td>
            </tr>
          );
        })}
      </DataTable>
    </Section>
  );
}

/** POST /promote {entity, source_run_id, artifact} behind a confirmation naming the run and keys. */
function Promote(props: {
  entity: string;
  run: RunSummary;
  artifact: ArtifactSummary;
  onOutcome: (outcome: { result?: PromoteResult; error?: unknown }) => void;
}) {
  const readOnly = useReadOnly();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const keys = props.artifact.candidate?.keys ?? [];
  const promote = async () => {
    setOpen(false);
    setBusy(true);
    props.onOutcome({});
    try {
      const body = { entity: props.entity, source_run_id: props.run.id, artifact: props.artifact.name };
      props.onOutcome({ result: await api<PromoteResult>("POST", "/promote", { body }) });
    } catch (caught) {
      props.onOutcome({ error: caught });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="primary" {...writeControl(readOnly, busy)} onClick={() => setOpen(true)}>
        {busy ? "Promoting…" : `Promote via ${props.artifact.name}…`}
      </button>
      <Confirm
        open={open}
        title={`Promote drafts of ${props.entity}?`}
        confirmLabel="Promote"
        onConfirm={promote}
        onCancel={() => setOpen(false)}
      >
        <p>
          Promote run <code>{props.run.id}</code> ({props.run.derivation}) for entity{" "}
          <strong>{props.entity}</strong>: its drafts for key{keys.length === 1 ? "" : "s"}{" "}
          <strong>{keys.join(", ")}</strong> become the active values, reviewed through artifact{" "}
          {props.artifact.name}@{props.artifact.version}.
        </p>
        <p class="muted">
          Refused with promotion_stale, writing nothing, if any of these keys changed since the run read them.
        </p>
      </Confirm>
    </>
  );
}
