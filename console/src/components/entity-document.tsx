// The entity page's Document tab: GET /document (current beliefs per collection and key,
// retractions, and the freshness of the read-triggered derivations that feed the entity).
import { api } from "../api";
import { useReadOnly, writeControl } from "../read-only";
import { href } from "../router";
import type { Belief, EntityDocument, Freshness } from "../types";
import { LoadStatus, RefreshButton, Section } from "./common";
import { ActionConfirm, ActionOutcome, useConfirmedAction } from "./confirmed-action";
import { DataTable } from "./data-table";
import { Link } from "./link";
import { KeyLink, RecordLink, RecordLinks, RecordTextCell, StateBadge } from "./records-links";
import { Age } from "./time";
import { type Loaded, useApi } from "./use-api";

/** The type of the tombstone a retraction writes (the MCP retract tool's too, docs/api.md "MCP"). */
const RETRACTION_TYPE = "retraction";

export function EntityDocumentTab(props: { entity: string; asOf: string }) {
  // A document as of a past moment is history: nothing in it is corrected or retracted from there.
  const readOnly = useReadOnly() || props.asOf !== "";
  const doc = useApi(
    (signal) =>
      api<EntityDocument>("GET", "/document", {
        query: { entity: props.entity, as_of: props.asOf || undefined },
        signal,
      }),
    [props.entity, props.asOf],
  );
  const retract = useConfirmedAction(async (belief: Belief) => {
    const row = {
      collection: belief.collection,
      entity: props.entity,
      key: belief.key,
      type: RETRACTION_TYPE,
      tombstone: true,
    };
    await api("POST", "/records", { body: { records: [row] } });
    return `${belief.key} is retracted: it left the document, and its history keeps the value it had.`;
  }, doc.reload);
  const d = doc.data;
  const byCollection = new Map<string, Belief[]>();
  for (const belief of d?.beliefs ?? []) {
    const list = byCollection.get(belief.collection) ?? [];
    list.push(belief);
    byCollection.set(belief.collection, list);
  }
  return (
    <>
      <LoadStatus of={doc} />
      {d ? (
        <>
          <FreshnessSection freshness={d.freshness} doc={doc} />
          <ActionConfirm action={retract} title="Retract this fact?" confirmLabel="Retract">
            {(belief) => (
              <p>
                A tombstone for <code>{belief.key}</code> in {belief.collection}: the fact leaves the
                document, searches and answers, and its history keeps “{belief.text}” and when it held.
                Writing the key again later sets it anew.
              </p>
            )}
          </ActionConfirm>
          <Section title={`Beliefs (${d.beliefs.length})`}>
            <ActionOutcome action={retract} />
            {d.beliefs.length === 0 ? (
              <p class="muted">No current keyed facts. Events are listed in the timeline.</p>
            ) : null}
            {[...byCollection].map(([collection, beliefs]) => (
              <div key={collection} class="doc-collection">
                <h3>
                  {collection} <span class="muted">v{beliefs[0]?.collection_version}</span>
                </h3>
                <DataTable
                  label={`Beliefs in ${collection}`}
                  class="beliefs-table"
                  columns={[
                    "Key",
                    "Value",
                    "Type",
                    "Cites",
                    "Record",
                    "Written",
                    { label: "Actions", hidden: true },
                  ]}
                >
                  {beliefs.map((belief) => (
                    <tr key={belief.id}>
                      <td class="key-cell">
                        <KeyLink entity={props.entity} collection={collection} keyName={belief.key}>
                          {belief.key}
                        </KeyLink>
                      </td>
                      <RecordTextCell row={belief} fallback={<span class="muted">(no text)</span>}>
                        {belief.citations.length > 0 ? <span class="badge derived">derived</span> : null}
                      </RecordTextCell>
                      <td>{belief.type}</td>
                      <td>
                        <RecordLinks
                          ids={belief.citations}
                          label={`Records ${belief.key} cites`}
                          max={6}
                          more={href("/record", { id: belief.id })}
                        />
                      </td>
                      <td>
                        <RecordLink id={belief.id} />
                      </td>
                      <td class="nowrap">
                        <Age at={belief.created_at} />
                      </td>
                      <td class="row-actions">
                        {readOnly ? null : (
                          <Link
                            href={href("/entity", { entity: props.entity, tab: "write", from: belief.id })}
                          >
                            Correct<span class="sr-only"> {belief.key}</span>
                          </Link>
                        )}{" "}
                        <button
                          type="button"
                          {...writeControl(readOnly)}
                          onClick={() => retract.ask(belief)}
                          aria-label={`Retract ${belief.key}`}
                        >
                          Retract
                        </button>
                      </td>
                    </tr>
                  ))}
                </DataTable>
              </div>
            ))}
          </Section>
          <Section title={`Retractions (${d.retractions.length})`}>
            {d.retractions.length === 0 ? (
              <p class="muted">No key is retracted.</p>
            ) : (
              <DataTable
                label="Retractions"
                columns={["Collection", "Key", "Retracting record", { label: "Seq", num: true }]}
              >
                {d.retractions.map((r) => (
                  <tr key={r.id}>
                    <td>{r.collection}</td>
                    <td>
                      <KeyLink entity={props.entity} collection={r.collection} keyName={r.key}>
                        {r.key}
                      </KeyLink>
                    </td>
                    <td>
                      <RecordLink id={r.id} />
                    </td>
                    <td class="num">{r.seq}</td>
                  </tr>
                ))}
              </DataTable>
            )}
          </Section>
        </>
      ) : null}
    </>
  );
}

/** Whether the derived facts are current: each read-triggered derivation's watermark and pending work. */
function FreshnessSection(props: { freshness: Freshness[]; doc: Loaded<EntityDocument> }) {
  return (
    <Section title="Freshness of derived facts" actions={<RefreshButton of={props.doc} />}>
      {props.freshness.length === 0 ? (
        <p class="muted">No read-triggered derivation feeds this entity.</p>
      ) : (
        <DataTable
          label="Freshness"
          columns={[
            "Derivation",
            "State",
            { label: "Watermark seq", num: true },
            { label: "Unready evidence", num: true },
            "Job",
          ]}
        >
          {props.freshness.map((f) => (
            <tr key={f.derivation}>
              <td>{f.derivation}</td>
              <td>
                {f.dirty ? (
                  <span
                    class="badge stale"
                    title="evidence newer than the watermark has not been derived yet"
                  >
                    stale: newer evidence
                  </span>
                ) : f.unready > 0 ? (
                  <span class="badge queued">waiting for enrichment</span>
                ) : (
                  <span class="badge fresh">fresh</span>
                )}
              </td>
              <td class="num">{f.watermark_seq}</td>
              <td class="num">{f.unready}</td>
              <td>
                {f.job ? (
                  <>
                    <StateBadge state={f.job.state} />{" "}
                    <Link href={href("/worker", { kind: "derive", state: f.job.state })}>
                      <code title={f.job.id}>job {f.job.id.slice(0, 8)}…</code>
                    </Link>
                  </>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Section>
  );
}
