import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { ApiError } from "../api";
import { errorText, type Loaded } from "./use-api";

/** A problem from the API, shown by its detail (and code, so an operator can look it up). */
export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  // A 404 is not a failure: what the page names is not there (a mistyped or erased id).
  if (props.error instanceof ApiError && props.error.status === 404) {
    return (
      <p class="note" role="status" data-testid="not-found">
        Not found: {errorText(props.error)}. It may never have existed in this workspace, or it was erased.
      </p>
    );
  }
  const code = props.error instanceof ApiError ? props.error.code : undefined;
  return (
    <p class="error" role="alert">
      {code ? <code class="error-code">{code}</code> : null} {errorText(props.error)}
    </p>
  );
}

/** An answer's error (by its detail) and "Loading…" until its first answer is there. */
export function LoadStatus(props: { of: Loaded<unknown> }) {
  return (
    <>
      <ErrorNote error={props.of.error} />
      <Loading when={props.of.loading && !props.of.data} />
    </>
  );
}

export function Loading(props: { when: boolean }) {
  return props.when ? (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  ) : null;
}

/** A value as indented JSON; `label` names the block for screen readers (and as its tooltip). */
export function Json(props: { value: unknown; label?: string }) {
  return (
    <pre class="json" role="document" aria-label={props.label} title={props.label}>
      {JSON.stringify(props.value, null, 2)}
    </pre>
  );
}

/** Names (keys, definition ids) as a wrapping row of chips, or "None.". */
export function Chips(props: { names: string[]; label: string }) {
  if (props.names.length === 0) return <p class="muted">None.</p>;
  return (
    <ul class="chips" aria-label={props.label}>
      {props.names.map((name) => (
        <li key={name}>
          <code>{name}</code>
        </li>
      ))}
    </ul>
  );
}

/** Reads an answer again; disabled while it loads. */
export function RefreshButton(props: { of: Loaded<unknown>; label?: string }) {
  return (
    <button type="button" onClick={props.of.reload} disabled={props.of.loading}>
      {props.label ?? "Refresh"}
    </button>
  );
}

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={props.title}>
      <header class="card-head">
        <h2>{props.title}</h2>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </section>
  );
}

/**
 * A destructive action behind a modal confirmation that names what it will do. `confirmLabel`
 * is the button that acts; Escape or Cancel closes without acting.
 */
export function Confirm(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) element.showModal();
    if (!props.open && element.open) element.close();
  }, [props.open]);
  return (
    <dialog ref={dialog} aria-label={props.title} onClose={props.onCancel} class="confirm">
      <h2>{props.title}</h2>
      <div>{props.children}</div>
      <div class="actions">
        <button type="button" onClick={props.onCancel} autofocus>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * Older/newer page buttons over a cursor the API returned (null on the last page). `onFirst` is
 * given past the first page; on a first page that is also the last, there is nothing to show.
 */
export function Pager(props: { next: unknown; onNext: () => void; onFirst?: () => void; label: string }) {
  const last = props.next === null || props.next === undefined;
  if (last && !props.onFirst) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      {props.onFirst ? (
        <button type="button" onClick={props.onFirst}>
          First page
        </button>
      ) : null}
      <button type="button" disabled={last} onClick={props.onNext}>
        Next page
      </button>
    </nav>
  );
}
