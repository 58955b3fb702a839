// Small pieces the worker and run pages share: short ids and error cells.

/** The first 8 hex digits of an id, the whole id as a tooltip and for screen readers. */
export function ShortId(props: { id: string | null | undefined }) {
  if (!props.id) return <span class="muted">—</span>;
  return (
    <code class="wk-id" title={props.id}>
      {props.id.slice(0, 8)}
    </code>
  );
}

/** A table cell with a job's or backfill's last error, or a dash. */
export function ErrorCell(props: { error: string | null | undefined }) {
  return (
    <td class="wk-error-cell">
      {props.error ? <span class="error-text">{props.error}</span> : <span class="muted">—</span>}
    </td>
  );
}
