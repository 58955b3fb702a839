import { api } from "../api";
import { EntityDocumentTab } from "../components/entity-document";
import { EntityDraftsTab } from "../components/entity-drafts";
import { EntityHistoryTab } from "../components/entity-history";
import { EntityTimelineTab } from "../components/entity-timeline";
import { EntityWriteTab } from "../components/entity-write";
import { Link } from "../components/link";
import { OpenForm } from "../components/open-form";
import { useApi } from "../components/use-api";
import { useReadOnly, writeControl } from "../read-only";
import { href, navigate, type Route } from "../router";
import type { TimelinePage } from "../types";

export const ENTITY_TABS = [
  { id: "document", label: "Document" },
  { id: "timeline", label: "Timeline" },
  { id: "history", label: "History" },
  { id: "drafts", label: "Drafts" },
  { id: "write", label: "Write" },
] as const;

/**
 * /console/entity?entity=E&tab=document|timeline|history|drafts|write — one entity's current
 * document, timeline, a keyed fact's history, the drafts of reviewed derivations, and a form to
 * add a record or correct a fact. Each tab keeps its own state in the query (timeline: status,
 * system, before; history: collection, key, before; write: collection, from).
 */
export function EntityPage(props: { route: Route }) {
  const q = props.route.query;
  const entity = q.get("entity") ?? "";
  const tab = ENTITY_TABS.some((t) => t.id === q.get("tab")) ? (q.get("tab") as string) : "document";
  const asOf = q.get("as_of") ?? "";
  const readOnly = useReadOnly();
  // Whether the workspace holds any record of the entity: an unknown one is said so, not shown empty.
  const known = useApi(
    (signal) =>
      entity
        ? api<TimelinePage>("GET", "/timeline", { query: { entity, status: "all", limit: 1 }, signal })
        : Promise.resolve(undefined),
    [entity],
  );
  if (!entity) return <OpenEntity />;
  if (known.data && known.data.records.length === 0 && tab !== "write")
    return <UnknownEntity entity={entity} />;
  return (
    <>
      <header class="page-head">
        <div>
          <p class="eyebrow">
            <Link href={href("/entities")}>Entities</Link> / entity
          </p>
          <h1 class="entity-title">{entity}</h1>
        </div>
        <div class="actions">
          {readOnly ? (
            <button type="button" {...writeControl(true)}>
              Erase this entity
            </button>
          ) : (
            <Link href={href("/erase", { entity })} class="button danger-link">
              Erase this entity
            </Link>
          )}
        </div>
      </header>
      <nav class="tabs" aria-label="Entity views">
        {ENTITY_TABS.map((t) => (
          <Link
            key={t.id}
            href={href("/entity", {
              entity,
              tab: t.id,
              as_of: t.id === "document" || t.id === "timeline" ? asOf : undefined,
            })}
            current={t.id === tab}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      {tab === "document" || tab === "timeline" ? (
        <AsOfControl
          asOf={asOf}
          onChange={(value) => navigate(href("/entity", { entity, tab, as_of: value }))}
        />
      ) : null}
      {tab === "document" ? <EntityDocumentTab entity={entity} asOf={asOf} /> : null}
      {tab === "timeline" ? (
        <EntityTimelineTab
          entity={entity}
          status={q.get("status") ?? "active"}
          system={q.get("system") === "true"}
          before={q.get("before") ?? ""}
          asOf={asOf}
        />
      ) : null}
      {tab === "history" ? (
        <EntityHistoryTab
          entity={entity}
          collection={q.get("collection") ?? ""}
          keyName={q.get("key") ?? ""}
          before={q.get("before") ?? ""}
        />
      ) : null}
      {tab === "drafts" ? <EntityDraftsTab entity={entity} /> : null}
      {tab === "write" ? (
        <EntityWriteTab entity={entity} from={q.get("from") ?? ""} collection={q.get("collection") ?? ""} />
      ) : null}
    </>
  );
}

/** No entity in the URL: ask for one (or go to the list). */
function OpenEntity() {
  return (
    <>
      <h1>Entity</h1>
      <OpenForm
        id="open-entity"
        label="Entity name"
        onOpen={(entity) => navigate(href("/entity", { entity }))}
      >
        <p class="muted">
          Or pick one from the <Link href={href("/entities")}>entity list</Link>.
        </p>
      </OpenForm>
    </>
  );
}

/** "2026-12-06T10:03:43" (a datetime-local value, read as UTC) → ISO 8601; "" stays "". */
function utcInstant(local: string): string {
  if (!local) return "";
  const at = Date.parse(`${local}Z`);
  return Number.isFinite(at) ? new Date(at).toISOString() : "";
}

/**
 * Memory as it was at a moment (docs/api.md "Memory over time"): the document and the timeline read
 * with as_of, kept in the URL; "Now" goes back to memory as it is.
 */
function AsOfControl(props: { asOf: string; onChange: (value: string | undefined) => void }) {
  const shown = props.asOf ? props.asOf.replace(/(\.\d+)?Z$/, "").slice(0, 19) : "";
  return (
    <form class="field-row as-of" onSubmit={(event) => event.preventDefault()}>
      <div class="field">
        <label for="entity-as-of">As of (UTC)</label>
        <input
          id="entity-as-of"
          type="datetime-local"
          step={1}
          value={shown}
          onChange={(e) => props.onChange(utcInstant(e.currentTarget.value) || undefined)}
        />
      </div>
      {props.asOf ? (
        <>
          <p class="note" role="status">
            Memory as it was at {props.asOf}: records written later are left out, and each key shows the value
            it had then.
          </p>
          <button type="button" onClick={() => props.onChange(undefined)}>
            Now
          </button>
        </>
      ) : null}
    </form>
  );
}

/** An entity the workspace holds no record of: said so, with a way to write its first record. */
function UnknownEntity(props: { entity: string }) {
  return (
    <>
      <h1 class="entity-title">{props.entity}</h1>
      <p class="note" role="status">
        No entity “{props.entity}” in this workspace: no record names it (or every one was erased).
      </p>
      <p>
        <Link href={href("/entities", { prefix: props.entity.slice(0, 3) })}>Look for similar names</Link> ·{" "}
        <Link href={href("/entity", { entity: props.entity, tab: "write" })}>Write its first record</Link>
      </p>
    </>
  );
}
