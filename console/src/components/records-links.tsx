// Links and badges shared by the entity, record, erase and worker pages.
import type { ComponentChildren } from "preact";
import { href } from "../router";
import { Link } from "./link";

/** A record id as a link to its record page (the first 8 hex digits; the whole id for screen readers). */
export function RecordLink(props: { id: string; full?: boolean }) {
  return (
    <Link href={href("/record", { id: props.id })} class="record-link">
      <code title={props.id} aria-hidden={props.full ? undefined : "true"}>
        {props.full ? props.id : `${props.id.slice(0, 8)}…`}
      </code>
      {props.full ? null : <span class="sr-only">record {props.id}</span>}
    </Link>
  );
}

/**
 * Record ids as a wrapping list of record links ("none" when empty); past `max` of them, a link
 * to `more` (the page listing them all) says how many are left out.
 */
export function RecordLinks(props: {
  ids: string[] | undefined;
  label: string;
  max?: number;
  more?: string;
}) {
  const ids = props.ids ?? [];
  if (ids.length === 0) return <span class="muted">none</span>;
  const shown = props.max && props.more && ids.length > props.max ? ids.slice(0, props.max) : ids;
  return (
    <ul class="id-list" aria-label={props.label}>
      {shown.map((id) => (
        <li key={id}>
          <RecordLink id={id} />
        </li>
      ))}
      {shown.length < ids.length && props.more ? (
        <li>
          <Link href={props.more}>+{ids.length - shown.length} more</Link>
        </li>
      ) : null}
    </ul>
  );
}

export function EntityLink(props: { entity: string; tab?: string }) {
  return <Link href={href("/entity", { entity: props.entity, tab: props.tab })}>{props.entity}</Link>;
}

/** A keyed fact's history on its entity's page (the History tab, on that collection and key). */
export function KeyLink(props: {
  entity: string;
  collection: string;
  keyName: string;
  children: ComponentChildren;
}) {
  return (
    <Link
      href={href("/entity", {
        entity: props.entity,
        tab: "history",
        collection: props.collection,
        key: props.keyName,
      })}
    >
      {props.children}
    </Link>
  );
}

/** A derivation run's page (built by the worker page). */
export function RunLink(props: { id: string | null | undefined }) {
  if (!props.id) return <span class="muted">—</span>;
  return (
    <Link href={href("/run", { id: props.id })} class="run-link">
      <code title={props.id}>run {props.id.slice(0, 8)}…</code>
    </Link>
  );
}

/** A state (of a job, run, backfill or record) as a badge coloured by it. */
export function StateBadge(props: { state: string | null | undefined }) {
  if (!props.state) return <span class="muted">—</span>;
  return <span class={`badge ${props.state}`}>{props.state}</span>;
}

/** A table cell with a record's text (else `fallback`), its state badges and any `children`. */
export function RecordTextCell(props: {
  row: { text?: string | null; status?: string; ready?: boolean; tombstone?: boolean };
  fallback: ComponentChildren;
  children?: ComponentChildren;
}) {
  const { row } = props;
  return (
    <td class="text-cell">
      {row.text || props.fallback}{" "}
      <RecordFlags status={row.status} ready={row.ready} tombstone={row.tombstone} />
      {props.children}
    </td>
  );
}

/** The state badges of a record row: draft, not ready, retraction (active and ready show nothing). */
export function RecordFlags(props: { status?: string; ready?: boolean; tombstone?: boolean }) {
  return (
    <span class="flags">
      {props.status && props.status !== "active" ? <StateBadge state={props.status} /> : null}
      {props.ready === false ? <span class="badge queued">not ready</span> : null}
      {props.tombstone ? <span class="badge retracted">retraction</span> : null}
    </span>
  );
}

/** A one-line JSON summary of a content object, for tables (the record page shows it whole). */
export function compactJson(value: unknown, max = 160): string {
  if (value === null || value === undefined) return "";
  const text = JSON.stringify(value);
  if (text === "{}") return "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A listed record's type (with its key, linked to the key's history), text and record link: the
 * cells the timeline and the memories list share.
 */
export function RecordRowCells(props: {
  entity: string;
  row: {
    id: string;
    collection: string;
    type: string;
    key: string | null;
    text: string;
    status?: string;
    ready?: boolean;
    tombstone?: boolean;
  };
}) {
  const { row } = props;
  return (
    <>
      <td>
        {row.type}
        {row.key ? (
          <div>
            <KeyLink entity={props.entity} collection={row.collection} keyName={row.key}>
              <code>{row.key}</code>
            </KeyLink>
          </div>
        ) : null}
      </td>
      <RecordTextCell
        row={row}
        fallback={<span class="muted">{row.tombstone ? "(retracts the key)" : "(no text)"}</span>}
      />
      <td>
        <RecordLink id={row.id} />
      </td>
    </>
  );
}
