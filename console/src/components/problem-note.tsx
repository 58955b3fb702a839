import { ApiError } from "../api";
import { ErrorNote } from "./common";

/** A refused call (a search, a view, an erasure): the problem's detail and, for a 422, each field it names. */
export function ProblemNote(props: { error: unknown }) {
  if (!props.error) return null;
  const errors = props.error instanceof ApiError ? fieldErrors(props.error) : [];
  return (
    <div class="problem" data-testid="problem">
      <ErrorNote error={props.error} />
      {errors.length > 0 ? (
        <ul class="problem-fields" aria-label="Problems by field">
          {errors.map((e, i) => (
            <li key={i}>
              {e.path ? <code>{e.path}</code> : null} {e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function fieldErrors(error: ApiError): { path: string; message: string }[] {
  const list = error.problem.errors;
  if (!Array.isArray(list)) return [];
  return list.map((e) => {
    const item = (e ?? {}) as Record<string, unknown>;
    const path = typeof item.path === "string" ? item.path : typeof item.field === "string" ? item.field : "";
    const message = typeof item.message === "string" ? item.message : JSON.stringify(item);
    return { path, message };
  });
}
