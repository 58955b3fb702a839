// The entity page's History tab: pick a keyed fact (from the entity's document) and list every
// version of it (GET /document/history), newest first, paged by next_before_seq.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { href, navigate } from "../router";
import type { EntityDocument, HistoryPage } from "../types";
import { ErrorNote, LoadStatus, Pager, Section } from "./common";
import { DataTable } from "./data-table";
import { compactJson, RecordFlags, RecordLink, RecordLinks, RunLink } from "./records-links";
import { Age } from "./time";
import { useApi } from "./use-api";

const PAGE_SIZE = 25;
const SEP = "\u0000";

export function EntityHistoryTab(props: {
  entity: string;
  collection: string;
  keyName: string;
  before: string;
}) {
  // The keys to choose from: the current document's beliefs and retractions.
  const doc = useApi(
    (signal) => api<EntityDocument>("GET", "/document", { query: { entity: props.entity }, signal }),
    [props.entity],
  );
  const slots = new Map<string, { collection: string; key: string; retracted: boolean }>();
  for (const b of doc.data?.beliefs ?? []) slots.set(b.collection + SEP + b.key, { ...b, retracted: false });
  for (const r of doc.data?.retractions ?? [])
    slots.set(r.collection + SEP + r.key, { ...r, retracted: true });
  const chosen = props.collection && props.keyName ? props.collection + SEP + props.keyName : "";
  if (chosen && !slots.has(chosen)) {
    slots.set(chosen, { collection: props.collection, key: props.keyName, retracted: false });
  }
  const sorted = [...slots].sort(([a], [b]) => a.localeCompare(b));

  const [pick, setPick] = useState(chosen);
  useEffect(() => setPick(chosen), [chosen]);

  const show = (value: string, before?: string | number | null) => {
    const [collection, key] = value.split(SEP);
    navigate(href("/entity", { entity: props.entity, tab: "history", collection, key, before }));
  };

  return (
    <>
      <section class="card" aria-label="Choose a key">
        <form
          class="field-row"
          onSubmit={(event) => {
            event.preventDefault();
            if (pick) show(pick);
          }}
        >
          <div class="field history-pick">
            <label for="history-key">Keyed fact</label>
            <select id="history-key" value={pick} onChange={(e) => setPick(e.currentTarget.value)}>
              <option value="">
                {doc.loading && !doc.data ? "Loading keys…" : "Choose a collection and key…"}
              </option>
              {sorted.map(([value, slot]) => (
                <option key={value} value={value}>
                  {slot.collection} · {slot.key}
                  {slot.retracted ? " (retracted)" : ""}
                </option>
              ))}
            </select>
          </div>
          <div class="field field-button">
            <button type="submit" class="primary" disabled={!pick || pick === chosen}>
              Show history
            </button>
          </div>
        </form>
        <ErrorNote error={doc.error} />
        {doc.data && sorted.length === 0 ? <p class="muted">This entity has no keyed facts.</p> : null}
      </section>
      {chosen ? (
        <Versions
          entity={props.entity}
          collection={props.collection}
          keyName={props.keyName}
          before={props.before}
          onPage={(before) => show(chosen, before)}
        />
      ) : null}
    </>
  );
}

function Versions(props: {
  entity: string;
  collection: string;
  keyName: string;
  before: string;
  onPage: (before: number | null) => void;
}) {
  const page = useApi(
    (signal) =>
      api<HistoryPage>("GET", "/document/history", {
        query: {
          entity: props.entity,
          collection: props.collection,
          key: props.keyName,
          limit: PAGE_SIZE,
          before_seq: props.before || undefined,
        },
        signal,
      }),
    [props.entity, props.collection, props.keyName, props.before],
  );
  const versions = page.data?.versions ?? [];
  // On the first page, the newest active version is the slot's current value.
  const current = props.before ? undefined : versions.find((v) => v.status === "active")?.id;
  return (
    <Section title={`History of ${props.collection} · ${props.keyName}`}>
      <LoadStatus of={page} />
      {page.data ? (
        <>
          {versions.length === 0 ? (
            <p class="muted">No versions of this key{props.before ? " before that seq" : ""}.</p>
          ) : null}
          {versions.length > 0 ? (
            <DataTable
              label="Versions"
              class="history-table"
              columns={[
                { label: "Seq", num: true },
                "Written",
                "Superseded",
                "Type",
                "Value",
                "Cites",
                "Run",
                { label: "Depth", num: true },
                "Record",
              ]}
            >
              {versions.map((v) => (
                <tr key={v.id} class={v.id === current ? "selected" : undefined}>
                  <td class="num">{v.seq}</td>
                  <td class="nowrap">
                    <Age at={v.created_at} />
                  </td>
                  <td class="nowrap">
                    {v.superseded_at ? <Age at={v.superseded_at} /> : <span class="muted">—</span>}
                  </td>
                  <td>
                    {v.type} <span class="muted">v{v.collection_version}</span>
                  </td>
                  <td class="text-cell">
                    {v.text ? <span>{v.text} </span> : null}
                    <code class="content-inline">{compactJson(v.content) || (v.tombstone ? "" : "{}")}</code>{" "}
                    <RecordFlags status={v.status} ready={v.ready} tombstone={v.tombstone} />
                    {v.id === current ? <span class="badge fresh">current</span> : null}
                  </td>
                  <td>
                    <RecordLinks
                      ids={v.citations}
                      label={`Records version ${v.seq} cites`}
                      max={6}
                      more={href("/record", { id: v.id })}
                    />
                  </td>
                  <td>
                    <RunLink id={v.run_id} />
                  </td>
                  <td class="num">{v.depth}</td>
                  <td>
                    <RecordLink id={v.id} />
                  </td>
                </tr>
              ))}
            </DataTable>
          ) : null}
          <Pager
            label="History"
            next={page.data.next_before_seq}
            onNext={() => props.onPage(page.data?.next_before_seq ?? null)}
            onFirst={props.before ? () => props.onPage(null) : undefined}
          />
        </>
      ) : null}
    </Section>
  );
}
