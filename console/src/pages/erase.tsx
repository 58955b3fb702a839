import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { Confirm, Loading, Pager, Section } from "../components/common";
import { DataTable } from "../components/data-table";
import { Link } from "../components/link";
import { plural } from "../components/plural";
import { ProblemNote } from "../components/problem-note";
import { EntityLink, RecordLink, StateBadge } from "../components/records-links";
import { useApi } from "../components/use-api";
import { useReadOnly, writeControl } from "../read-only";
import { href, navigate, type Route } from "../router";
import type { DerivedRecord, EraseAudit, ErasePreview, Job } from "../types";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Target = { kind: "entity"; entity: string } | { kind: "records"; records: string[] };

/** Record ids as typed: separated by commas, spaces or new lines. */
function parseIds(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

function targetOf(query: URLSearchParams): Target | null {
  const entity = query.get("entity");
  if (entity?.trim()) return { kind: "entity", entity };
  const records = parseIds(query.get("records") ?? "");
  return records.length > 0 ? { kind: "records", records } : null;
}

function bodyOf(target: Target) {
  return target.kind === "entity" ? { entity: target.entity } : { records: target.records };
}

/** "entity acme" or "3 records" — what the operator chose, in words. */
function describe(target: Target): string {
  return target.kind === "entity"
    ? `entity ${target.entity}`
    : `${target.records.length} chosen record${target.records.length === 1 ? "" : "s"}`;
}

/**
 * /console/erase?entity=E or ?records=id1,id2 — choose what to erase, preview the closure
 * (POST /erase?dry_run=true), then erase behind a confirmation naming it, and show the audit.
 */
export function ErasePage(props: { route: Route }) {
  const target = targetOf(props.route.query);
  const targetKey = target ? JSON.stringify(target) : "";
  return (
    <>
      <h1>Erase</h1>
      <p class="muted erase-intro">
        Erasure permanently removes an entity's records, or chosen records, together with every record derived
        from them. It writes a content-free audit and cannot be undone. Preview first: nothing is removed
        until you confirm.
      </p>
      <ChooseTarget key={targetKey} target={target} />
      {target ? <PreviewAndErase key={targetKey} target={target} /> : null}
    </>
  );
}

function ChooseTarget(props: { target: Target | null }) {
  const [kind, setKind] = useState<"entity" | "records">(props.target?.kind ?? "entity");
  const [entity, setEntity] = useState(props.target?.kind === "entity" ? props.target.entity : "");
  const [records, setRecords] = useState(
    props.target?.kind === "records" ? props.target.records.join("\n") : "",
  );
  const ready = kind === "entity" ? entity.trim() !== "" : parseIds(records).length > 0;
  const readOnly = useReadOnly();
  return (
    <section class="card" aria-label="What to erase">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!ready) return;
          navigate(
            kind === "entity"
              ? href("/erase", { entity: entity.trim() })
              : href("/erase", { records: parseIds(records).join(",") }),
          );
        }}
      >
        <fieldset class="erase-kind">
          <legend>What to erase</legend>
          <label class="check">
            <input
              type="radio"
              name="erase-kind"
              checked={kind === "entity"}
              onChange={() => setKind("entity")}
            />
            An entity
          </label>
          <label class="check">
            <input
              type="radio"
              name="erase-kind"
              checked={kind === "records"}
              onChange={() => setKind("records")}
            />
            Chosen records
          </label>
        </fieldset>
        {kind === "entity" ? (
          <div class="field erase-input">
            <label for="erase-entity">Entity</label>
            <input
              id="erase-entity"
              value={entity}
              spellcheck={false}
              autoComplete="off"
              onInput={(event) => setEntity(event.currentTarget.value)}
            />
          </div>
        ) : (
          <div class="field erase-input">
            <label for="erase-records">Record ids (separated by commas, spaces or new lines)</label>
            <textarea
              id="erase-records"
              class="erase-ids"
              value={records}
              spellcheck={false}
              onInput={(event) => setRecords(event.currentTarget.value)}
            />
          </div>
        )}
        <div class="actions">
          <button type="submit" class="primary" {...writeControl(readOnly, !ready)}>
            Preview
          </button>
          <span class="muted">
            {readOnly
              ? "This key is read-only: it can neither preview nor erase."
              : "Counts what would be removed; removes nothing."}
          </span>
        </div>
      </form>
    </section>
  );
}

function PreviewAndErase(props: { target: Target }) {
  const readOnly = useReadOnly();
  const { target } = props;
  // A dry run is a POST a read-only key is refused: under such a key (or before the key's scope is
  // known) it is not sent, even from a deep link.
  const preview = useApi(
    (signal) =>
      readOnly
        ? Promise.resolve(undefined)
        : api<ErasePreview>("POST", "/erase", {
            query: { dry_run: true, list: true },
            body: bodyOf(target),
            signal,
          }),
    [readOnly],
  );
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [audit, setAudit] = useState<EraseAudit>();
  useEffect(() => {
    if (audit) document.getElementById("erase-audit")?.focus();
  }, [audit]);

  const p = preview.data;
  const what = p
    ? `Erase ${describe(target)}: ${plural(p.deleted, "record")}, ${p.derived} derived, across ${plural(
        p.affected_entities,
        "entity",
        "entities",
      )}. Irreversible.`
    : "";
  const erase = async () => {
    setConfirming(false);
    setBusy(true);
    setError(undefined);
    try {
      setAudit(await api<EraseAudit>("POST", "/erase", { body: bodyOf(target) }));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  if (audit) {
    return (
      <section class="card erase-done" aria-label="Erasure audit" id="erase-audit" tabIndex={-1}>
        <header class="card-head">
          <h2>Erased {describe(target)}</h2>
        </header>
        <p role="status">
          {plural(audit.deleted, "record")} removed across{" "}
          {plural(audit.affected_entities, "entity", "entities")}. The audit record holds hashes only, no
          content.
        </p>
        <dl class="facts">
          <dt>Audit id</dt>
          <dd>
            <code data-testid="erase-audit-id">{audit.audit_id}</code>
          </dd>
          <dt>Deleted</dt>
          <dd data-testid="erase-deleted">{audit.deleted}</dd>
          <dt>Affected entities</dt>
          <dd>{audit.affected_entities}</dd>
          <dt>Index delete job</dt>
          <dd>
            <IndexJob id={audit.index_delete_job_id} />
          </dd>
        </dl>
        <p>
          {target.kind === "entity" ? (
            <>
              <EntityLink entity={target.entity} tab="timeline" /> ·{" "}
            </>
          ) : null}
          <Link href={href("/entities")}>Entities</Link>
        </p>
      </section>
    );
  }

  return (
    <Section title={`Preview: erase ${describe(target)}`}>
      {target.kind === "records" ? (
        <ul class="id-list" aria-label="Chosen records">
          {target.records.map((id) => (
            <li key={id}>
              {UUID.test(id) ? (
                <RecordLink id={id} />
              ) : (
                <span class="alert">
                  <code>{id}</code> is not a record id
                </span>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {readOnly ? (
        <p class="note" role="status">
          This key is read-only: the preview and the erasure are requests it is refused (403 key_read_only),
          so neither is sent.
        </p>
      ) : null}
      <ProblemNote error={preview.error} />
      <Loading when={preview.loading} />
      {p ? (
        <>
          <dl class="facts erase-counts">
            <dt>Records removed</dt>
            <dd data-testid="preview-deleted">{p.deleted}</dd>
            <dt>Derived from them (beyond the selection)</dt>
            <dd data-testid="preview-derived">{p.derived}</dd>
            <dt>Entities affected</dt>
            <dd data-testid="preview-entities">{p.affected_entities}</dd>
          </dl>
          {Object.keys(p.by_collection).length > 0 ? (
            <DataTable
              label="Records removed by collection"
              class="erase-by-collection"
              columns={["Collection", { label: "Records", num: true }]}
              bare
            >
              {Object.entries(p.by_collection)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([collection, n]) => (
                  <tr key={collection}>
                    <td>{collection}</td>
                    <td class="num">{n}</td>
                  </tr>
                ))}
            </DataTable>
          ) : null}
          {"derived_records" in p && p.derived_records.length > 0 ? (
            <DerivedRecords records={p.derived_records} truncated={p.derived - p.derived_records.length} />
          ) : null}
          {p.deleted === 0 ? (
            <p class="muted">Nothing to erase: no record matches.</p>
          ) : (
            <div class="actions erase-actions">
              <button
                type="button"
                class="danger"
                {...writeControl(readOnly, busy)}
                onClick={() => setConfirming(true)}
              >
                {busy ? "Erasing…" : "Erase…"}
              </button>
              <button type="button" onClick={preview.reload} disabled={preview.loading || busy}>
                Preview again
              </button>
            </div>
          )}
          <ProblemNote error={error} />
          <Confirm
            open={confirming}
            title={`Erase ${describe(target)}?`}
            confirmLabel={`Erase ${plural(p.deleted, "record")}`}
            onConfirm={erase}
            onCancel={() => setConfirming(false)}
          >
            <p class="confirm-what">{what}</p>
            <p class="muted">
              Removed by collection:{" "}
              {Object.entries(p.by_collection)
                .map(([collection, n]) => `${collection} ${n}`)
                .join(", ")}
              . The erasure acts on the data as it stands when you confirm.
            </p>
          </Confirm>
        </>
      ) : null}
    </Section>
  );
}

/** The erasure's external-index delete job: its state now, and the worker page listing its kind. */
function IndexJob(props: { id: string }) {
  const job = useApi(
    (signal) => api<Job>("GET", `/jobs/${encodeURIComponent(props.id)}`, { signal }),
    [props.id],
  );
  return (
    <>
      <code>{props.id}</code> {job.data ? <StateBadge state={job.data.state} /> : null}{" "}
      <Link href={href("/worker", { kind: job.data?.kind ?? "index_delete" })}>worker jobs</Link>{" "}
      <span class="muted">(removes the records from external indexes in the background)</span>
    </>
  );
}

const DERIVED_PAGE = 25;

/** The derived records an erasure takes with it, named and linked, a page at a time. */
function DerivedRecords(props: { records: DerivedRecord[]; truncated: number }) {
  const [page, setPage] = useState(0);
  const shown = props.records.slice(page * DERIVED_PAGE, (page + 1) * DERIVED_PAGE);
  const last = (page + 1) * DERIVED_PAGE >= props.records.length;
  return (
    <section aria-label="Derived records removed">
      <h3>Derived records that go with them</h3>
      <DataTable
        label="Derived records removed"
        columns={["Record", "Entity", "Collection", "Type / key", "Text"]}
      >
        {shown.map((r) => (
          <tr key={r.id}>
            <td>
              <RecordLink id={r.id} />
            </td>
            <td>
              <EntityLink entity={r.entity} />
            </td>
            <td>{r.collection}</td>
            <td>
              {r.type}
              {r.key ? (
                <div>
                  <code>{r.key}</code>
                </div>
              ) : null}
            </td>
            <td class="text-cell">{r.text || <span class="muted">(no text)</span>}</td>
          </tr>
        ))}
      </DataTable>
      {props.truncated > 0 ? (
        <p class="muted">
          And {plural(props.truncated, "older derived record")} not named here (the newest{" "}
          {props.records.length} are).
        </p>
      ) : null}
      <Pager
        label="Derived records"
        next={last ? null : page + 1}
        onNext={() => setPage(page + 1)}
        onFirst={page > 0 ? () => setPage(0) : undefined}
      />
    </section>
  );
}
