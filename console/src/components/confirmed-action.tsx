// An action on one row of a list (retry a job, cancel a backfill) behind a confirmation naming
// it: the row awaiting confirmation, the request, then the notice it leaves or the problem it met.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { Confirm, ErrorNote } from "./common";

export interface ConfirmedAction<T> {
  /** The row whose confirmation is open. */
  pending: T | undefined;
  ask: (row: T) => void;
  confirm: () => Promise<void>;
  cancel: () => void;
  error: unknown;
  notice: string;
  clearNotice: () => void;
}

/** `act` sends the request and returns the notice to show; `done` follows its success (a reload). */
export function useConfirmedAction<T>(
  act: (row: T) => Promise<string>,
  done: () => void,
): ConfirmedAction<T> {
  const [pending, setPending] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState("");
  const confirm = async () => {
    if (pending === undefined) return;
    setPending(undefined);
    setError(undefined);
    try {
      setNotice(await act(pending));
      done();
    } catch (caught) {
      setError(caught);
    }
  };
  return {
    pending,
    ask: (row) => setPending(() => row),
    confirm,
    cancel: () => setPending(undefined),
    error,
    notice,
    clearNotice: () => setNotice(""),
  };
}

/** The action's problem (by its detail) and the notice its success left. */
export function ActionOutcome<T>(props: { action: ConfirmedAction<T> }) {
  return (
    <>
      <ErrorNote error={props.action.error} />
      {props.action.notice ? (
        <p class="ok-note" role="status">
          {props.action.notice}
        </p>
      ) : null}
    </>
  );
}

/** The confirmation of the pending row; `children` says what the action will do to it. */
export function ActionConfirm<T>(props: {
  action: ConfirmedAction<T>;
  title: string;
  confirmLabel: string;
  children: (row: T) => ComponentChildren;
}) {
  const { action } = props;
  return (
    <Confirm
      open={action.pending !== undefined}
      title={props.title}
      confirmLabel={props.confirmLabel}
      onConfirm={action.confirm}
      onCancel={action.cancel}
    >
      {action.pending !== undefined ? props.children(action.pending) : null}
    </Confirm>
  );
}
