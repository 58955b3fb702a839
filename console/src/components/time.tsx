// Times as an operator reads them: "3 min ago", "in 2 h", "1.2 s", each with the exact timestamp
// as a tooltip.

/** "42 s", "3 min", "5 h", "2 d": a span of seconds in its largest whole unit. */
function span(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** "3 min ago" (a time ahead of now counts as now). */
export function ago(at: string, now = Date.now()): string {
  return `${span(Math.max(0, Math.round((now - Date.parse(at)) / 1000)))} ago`;
}

/** "in 3 min" / "3 min ago". */
export function relative(at: string, now = Date.now()): string {
  const delta = Math.round((Date.parse(at) - now) / 1000);
  const text = span(Math.abs(delta));
  return delta > 0 ? `in ${text}` : `${text} ago`;
}

/** How long between two timestamps ("1.2 s", "3 min 4 s"). */
export function duration(from: string, to: string | null | undefined): string {
  if (!to) return "still running";
  const ms = Math.max(0, Date.parse(to) - Date.parse(from));
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function TimeText(props: { at: string | null | undefined; format: (at: string) => string }) {
  if (!props.at) return <span class="muted">—</span>;
  return (
    <time dateTime={props.at} title={props.at}>
      {props.format(props.at)}
    </time>
  );
}

/** "3 min ago" with the exact timestamp as a tooltip. */
export function Age(props: { at: string | null | undefined }) {
  return <TimeText at={props.at} format={ago} />;
}

/** "in 3 min" / "3 min ago" (a due time may lie ahead), with the exact timestamp as a tooltip. */
export function When(props: { at: string | null | undefined }) {
  return <TimeText at={props.at} format={relative} />;
}
