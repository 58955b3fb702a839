// The replay protocol of GET /delta and POST /cursor, done the one safe way: a page is handed to
// the caller's handler, and the consumer's cursor moves past it only after the handler resolved.
// A handler that throws leaves the cursor where it was, so the next run gets that page again:
// nothing is skipped, and nothing the handler finished is handed over twice. (A crash between the
// handler finishing and the cursor moving hands that one page over again: make applying it idempotent.)
import type { DeltaPage, DeltaQuery } from "./types.js";

export interface ConsumeOptions {
  signal?: AbortSignal;
  /** Stop after this many pages (default: when the consumer has caught up). */
  maxPages?: number;
}

export interface ConsumeResult {
  pages: number;
  records: number;
  /** The cursor's position after the last page applied (undefined when there was nothing new). */
  position: number | undefined;
}

export interface DeltaTransport {
  page(consumer: string, query: DeltaQuery, signal?: AbortSignal): Promise<DeltaPage>;
  advance(body: {
    consumer: string;
    entity: string | null;
    position: number;
    scope_hash: string;
  }): Promise<unknown>;
}

export async function consumeDelta(
  transport: DeltaTransport,
  consumer: string,
  query: DeltaQuery,
  handler: (page: DeltaPage) => unknown,
  options: ConsumeOptions = {},
): Promise<ConsumeResult> {
  const result: ConsumeResult = { pages: 0, records: 0, position: undefined };
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  while (result.pages < maxPages) {
    options.signal?.throwIfAborted();
    const page = await transport.page(consumer, query, options.signal);
    if (page.records.length === 0) break;
    await handler(page);
    // Not cancelled by the signal: the page is applied, so the cursor must follow it.
    await transport.advance({
      consumer,
      entity: query.entity ?? null,
      position: page.next_cursor,
      scope_hash: page.scope_hash,
    });
    result.pages += 1;
    result.records += page.records.length;
    result.position = page.next_cursor;
  }
  return result;
}
