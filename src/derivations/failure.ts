// How a run ends badly (docs/api.md, "How a run works": Runs). Details name what went
// wrong in the service's words: never a prompt, evidence text or a model reply.
export type FailureKind =
  | "limits"
  | "source_too_large"
  | "model_unavailable"
  | "model_output"
  | "emission"
  | "cancelled"
  | "internal";

/** Model calls and tokens a run spent. */
export interface Usage {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export class RunFailure extends Error {
  /** What the run had spent when it failed (set by the task runner). */
  usage: Usage | undefined;
  constructor(
    readonly kind: FailureKind,
    detail: string,
  ) {
    super(detail);
    this.name = "RunFailure";
  }
}

/** Failures a later attempt may not repeat: the job is retried with backoff. Others end it. */
export function isTransient(kind: FailureKind): boolean {
  return kind === "model_unavailable" || kind === "internal";
}
