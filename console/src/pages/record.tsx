import { ApiError, api } from "../api";
import { Json, LoadStatus, Pager, Section } from "../components/common";
import { DataTable } from "../components/data-table";
import { Link } from "../components/link";
import { OpenForm } from "../components/open-form";
import { plural } from "../components/plural";
import { ProvenancePicture } from "../components/provenance-picture";
import {
  compactJson,
  EntityLink,
  KeyLink,
  RecordFlags,
  RecordLink,
  RecordLinks,
  RecordTextCell,
  RunLink,
  StateBadge,
} from "../components/records-links";
import { Age } from "../components/time";
import { useApi } from "../components/use-api";
import { href, navigate, type Route } from "../router";
import type { CitedByPage, FullRecord } from "../types";

const CITED_BY_PAGE = 20;

/**
 * /console/record?id=ID[&cited_before=SEQ] — one record with all its fields and its provenance:
 * what it derives from and cites, and (paged) the records that derive from it.
 */
export function RecordPage(props: { route: Route }) {
  const id = (props.route.query.get("id") ?? "").trim();
  const citedBefore = props.route.query.get("cited_before") ?? "";
  if (!id) return <OpenRecord />;
  return <RecordView key={id} id={id} citedBefore={citedBefore} />;
}

function RecordView(props: { id: string; citedBefore: string }) {
  const record = useApi(
    (signal) => api<FullRecord>("GET", `/records/${encodeURIComponent(props.id)}`, { signal }),
    [props.id],
  );
  const r = record.data;
  return (
    <>
      <header class="page-head">
        <div>
          <p class="eyebrow">
            {r ? (
              <>
                <EntityLink entity={r.entity} /> / {r.collection} / record
              </>
            ) : (
              "Record"
            )}
          </p>
          <h1 class="record-title">
            <code>{props.id}</code>
          </h1>
        </div>
        {r ? (
          <div class="actions">
            <Link href={href("/entity", { entity: r.entity, tab: "timeline" })} class="button">
              Entity timeline
            </Link>
            <Link href={href("/erase", { records: r.id })} class="button danger-link">
              Erase this record…
            </Link>
          </div>
        ) : null}
      </header>
      <LoadStatus of={record} />
      {r ? (
        <>
          <div class="record-grid">
            <Section title="Fields">
              <dl class="facts">
                <dt>Entity</dt>
                <dd>
                  <EntityLink entity={r.entity} />
                </dd>
                <dt>Collection</dt>
                <dd>
                  {r.collection} <span class="muted">v{r.collection_version}</span>
                </dd>
                <dt>Contract hash</dt>
                <dd>
                  <code class="hash">{r.collection_hash}</code>
                </dd>
                <dt>Type</dt>
                <dd>{r.type}</dd>
                <dt>Key</dt>
                <dd>
                  {r.key ? (
                    <KeyLink entity={r.entity} collection={r.collection} keyName={r.key}>
                      {r.key}
                    </KeyLink>
                  ) : (
                    <span class="muted">none (not keyed)</span>
                  )}
                </dd>
                <dt>Status</dt>
                <dd>
                  <StateBadge state={r.status} /> <RecordFlags ready={r.ready} tombstone={r.tombstone} />
                </dd>
                <dt>Ready</dt>
                <dd>{r.ready ? "yes" : "no: enrichment pending"}</dd>
                <dt>Seq</dt>
                <dd>{r.seq}</dd>
                <dt>Depth</dt>
                <dd>{r.depth === 0 ? "0 (original evidence)" : `${r.depth} (derived)`}</dd>
                <dt>Run</dt>
                <dd>
                  <RunLink id={r.run_id} />
                </dd>
                <dt>Occurred</dt>
                <dd>
                  <Age at={r.occurred_at} /> <span class="muted small">{r.occurred_at ?? ""}</span>
                </dd>
                <dt>Created</dt>
                <dd>
                  <Age at={r.created_at} /> <span class="muted small">{r.created_at}</span>
                </dd>
              </dl>
            </Section>
            <Section title="Provenance">
              <dl class="facts">
                <dt>Derives from</dt>
                <dd>
                  {r.derived_from.length === 0 ? (
                    <span class="muted">nothing: original evidence</span>
                  ) : (
                    plural(r.derived_from.length, "record")
                  )}
                </dd>
                <dt>Cites</dt>
                <dd>
                  {r.citations.length === 0
                    ? "nothing"
                    : sameIds(r.citations, r.derived_from)
                      ? "the same records"
                      : plural(r.citations.length, "record")}
                </dd>
              </dl>
              {r.citations.length > 0 && !sameIds(r.citations, r.derived_from) ? (
                <>
                  <h3>Cites</h3>
                  <RecordLinks ids={r.citations} label="Cites" />
                </>
              ) : null}
            </Section>
          </div>
          {r.derived_from.length > 0 ? <Parents ids={r.derived_from} cited={r.citations} /> : null}
          <ProvenancePicture record={r} />
          <Section title="Text">
            {r.text ? <p class="record-text">{r.text}</p> : <p class="muted">(no text)</p>}
          </Section>
          <div class="record-grid record-grid-even">
            <Section title="Content">
              <Json value={r.content} label="Content" />
            </Section>
            <Section title="Scores and annotations">
              {Object.keys(r.scores).length === 0 ? (
                <p class="muted">No scores.</p>
              ) : (
                <DataTable label="Scores" columns={["Score", { label: "Value", num: true }]} bare>
                  {Object.entries(r.scores).map(([name, value]) => (
                    <tr key={name}>
                      <td>{name}</td>
                      <td class="num">{typeof value === "number" ? value.toFixed(4) : String(value)}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
              {Object.keys(r.annotations).length === 0 ? (
                <p class="muted">No annotations.</p>
              ) : (
                <Json value={r.annotations} label="Annotations" />
              )}
            </Section>
          </div>
          <CitedBy id={r.id} before={props.citedBefore} />
        </>
      ) : null}
    </>
  );
}

/** Parents shown with their collection and text: this many are read (one request each), the rest listed. */
const PARENTS_SHOWN = 20;

/** The records this one derives from, each read for its collection, entity and text. */
function Parents(props: { ids: string[]; cited: string[] }) {
  const shown = props.ids.slice(0, PARENTS_SHOWN);
  const parents = useApi(
    (signal) =>
      Promise.all(
        shown.map((id) =>
          api<FullRecord>("GET", `/records/${id}`, { signal }).catch((error: unknown) => {
            if (error instanceof ApiError && error.status === 404) return null;
            throw error;
          }),
        ),
      ),
    [props.ids.join(",")],
  );
  return (
    <Section title={`Derives from (${props.ids.length})`}>
      <LoadStatus of={parents} />
      {parents.data ? (
        <DataTable
          label="Derives from"
          class="parents-table"
          columns={[{ label: "Seq", num: true }, "Entity", "Collection / type", "Text", "Record"]}
        >
          {shown.map((id, i) => {
            const parent = parents.data?.[i];
            return (
              <tr key={id}>
                <td class="num">{parent?.seq ?? ""}</td>
                <td>{parent ? <EntityLink entity={parent.entity} /> : null}</td>
                <td>
                  {parent ? (
                    <>
                      {parent.collection} <span class="muted">{parent.type}</span>
                      {parent.key ? (
                        <div>
                          <code>{parent.key}</code>
                        </div>
                      ) : null}
                    </>
                  ) : null}
                </td>
                <td class="text-cell">
                  {parent ? (
                    parent.text || <code class="content-inline">{compactJson(parent.content)}</code>
                  ) : (
                    <span class="muted">no longer stored (erased)</span>
                  )}{" "}
                  {parent ? (
                    <RecordFlags status={parent.status} ready={parent.ready} tombstone={parent.tombstone} />
                  ) : null}
                  {props.cited.includes(id) ? <span class="badge">cited</span> : null}
                </td>
                <td>
                  <RecordLink id={id} />
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : null}
      {props.ids.length > shown.length ? (
        <>
          <h3>{props.ids.length - shown.length} more</h3>
          <RecordLinks ids={props.ids.slice(shown.length)} label="More records it derives from" />
        </>
      ) : null}
    </Section>
  );
}

function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}

/** GET /records/{id}/cited-by: the records whose derived_from names this one, newest first. */
function CitedBy(props: { id: string; before: string }) {
  const page = useApi(
    (signal) =>
      api<CitedByPage>("GET", `/records/${encodeURIComponent(props.id)}/cited-by`, {
        query: { limit: CITED_BY_PAGE, before_seq: props.before || undefined },
        signal,
      }),
    [props.id, props.before],
  );
  const rows = page.data?.records ?? [];
  const go = (before: number | null | undefined) =>
    navigate(href("/record", { id: props.id, cited_before: before ?? undefined }));
  return (
    <Section title="Cited by (records derived from this one)">
      <LoadStatus of={page} />
      {page.data ? (
        <>
          {rows.length === 0 ? (
            <p class="muted">No record derives from this one{props.before ? " before that seq" : ""}.</p>
          ) : (
            <DataTable
              label="Cited by"
              class="cited-table"
              columns={[{ label: "Seq", num: true }, "Entity", "Collection / key", "Text", "Run", "Record"]}
            >
              {rows.map((row) => (
                <tr key={row.id}>
                  <td class="num">{row.seq}</td>
                  <td>
                    <EntityLink entity={row.entity} />
                  </td>
                  <td>
                    {row.collection}
                    {row.key ? (
                      <div>
                        <code>{row.key}</code>
                      </div>
                    ) : null}
                  </td>
                  <RecordTextCell
                    row={row}
                    fallback={<code class="content-inline">{compactJson(row.content)}</code>}
                  />
                  <td>
                    <RunLink id={row.run_id} />
                  </td>
                  <td>
                    <RecordLink id={row.id} />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          <Pager
            label="Cited by"
            next={page.data.next_before_seq}
            onNext={() => go(page.data?.next_before_seq)}
            onFirst={props.before ? () => go(null) : undefined}
          />
        </>
      ) : null}
    </Section>
  );
}

function OpenRecord() {
  return (
    <>
      <h1>Record</h1>
      <OpenForm
        id="open-record"
        label="Record id"
        placeholder="00000000-0000-0000-0000-000000000000"
        fieldClass="record-id-field"
        onOpen={(id) => navigate(href("/record", { id }))}
      />
    </>
  );
}
