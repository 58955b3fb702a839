// A database this process cannot serve as configured, found while opening or preparing it: a
// refused capability (pgvector that cannot be created), a check that could not be answered, or
// stored embeddings in another layout (docs/operations.md, Vector layouts). The start stops with
// the message, which says what the operator can do; nothing has been changed by then.

export class DatabaseSetupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseSetupError";
  }
}
