// The Engram client: one object per workspace key, with a method per thing a memory user does.
// Every request and response type comes from the server's OpenAPI document (generated/); this
// file adds what raw routes leave to the caller: paging, batching, the replay protocol, retries
// where they are safe, typed errors and cancellation.
import createClient, { type Client } from "openapi-fetch";
import {
  DEFAULT_LIMITS,
  mergeBatch,
  PartialWriteError,
  splitBatches,
  type WriteLimits,
  type WriteResult,
} from "./batches.js";
import {
  type ConversationMessage,
  messageRows,
  type RecallOptions,
  type RememberOptions,
  recallArguments,
} from "./conversation.js";
import { delay } from "./delay.js";
import { type ConsumeOptions, type ConsumeResult, consumeDelta } from "./delta.js";
import type { paths } from "./generated/openapi.js";
import { Pages } from "./paging.js";
import { type Outcome, type RetryOptions, type RetryPolicy, retryPolicy, withRetry } from "./retry.js";
import type * as T from "./types.js";

export interface EngramOptions {
  /** The API's base URL, like https://memory.example.com or http://127.0.0.1:8080 */
  url: string;
  /** A workspace key (egk_…). */
  key: string;
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** Retries of safe requests on 429 and 503; false turns them off. */
  retry?: RetryOptions | false;
}

/** Options every call takes. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Whether repeating a request is harmless: only then is it retried. */
const SAFE = true;
const UNSAFE = false;

const FINISHED_JOB_STATES = new Set(["succeeded", "dead", "cancelled"]);

export class Engram {
  readonly url: string;
  /** The generated, typed client of every route, for what the methods here do not cover. */
  readonly raw: Client<paths>;
  private readonly policy: RetryPolicy;
  private readonly baseFetch: typeof fetch;
  private readonly authorization: string;
  private limits?: Promise<WriteLimits>;

  constructor(options: EngramOptions) {
    if (!options.url) throw new TypeError("Engram needs the API's url");
    if (!options.key) throw new TypeError("Engram needs a workspace key");
    this.url = options.url.replace(/\/+$/, "");
    this.authorization = `Bearer ${options.key}`;
    this.baseFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.policy = retryPolicy(options.retry);
    this.raw = createClient<paths>({ baseUrl: this.url, fetch: (request) => this.fetch(request) });
  }

  /** fetch with the workspace key added: for transports that speak to Engram themselves (MCP). */
  readonly fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    request.headers.set("authorization", this.authorization);
    return this.baseFetch(request);
  };

  /** One request (built afresh for each try), its failures thrown as EngramError. */
  private call<R>(
    safe: boolean,
    options: CallOptions,
    attempt: (signal?: AbortSignal) => Promise<Outcome<R>>,
  ): Promise<R> {
    return withRetry(() => attempt(options.signal), this.policy, safe, options.signal);
  }

  /** A newest-first listing across pages, each after the previous page's next_before_seq. */
  private pagesBefore<Item, Page extends { next_before_seq: number | null }>(
    options: CallOptions,
    attempt: (before: number | undefined, signal?: AbortSignal) => Promise<Outcome<Page>>,
    items: (page: Page) => Item[],
  ): Pages<Item, Page> {
    return new Pages(
      (before) => this.call(SAFE, options, (signal) => attempt(before as number | undefined, signal)),
      items,
      (page) => page.next_before_seq,
    );
  }

  /** GET /workspace: the key's workspace, its counts, the key itself and the server's write limits. */
  workspace(options: CallOptions = {}): Promise<T.WorkspaceInfo> {
    return this.call(SAFE, options, (signal) => this.raw.GET("/workspace", { signal }));
  }

  readonly records = {
    /**
     * POST /records, in as many batches as the server's limits need (each batch atomic). Batches
     * whose rows all carry a dedupe_key are retried on 429/503; indexes point into `rows`.
     */
    write: async (rows: T.RecordRow[], options: CallOptions = {}): Promise<WriteResult> => {
      const result: WriteResult = { inserted: [], duplicates: [], job_ids: [] };
      // An empty write goes to the server as it is, for its refusal rather than a silent success.
      const batches =
        rows.length === 0 ? [{ start: 0, rows }] : splitBatches(rows, await this.writeLimits(options.signal));
      for (const batch of batches) {
        const safe = batch.rows.length > 0 && batch.rows.every((row) => row.dedupe_key !== undefined);
        try {
          const answer = await this.call(safe, options, (signal) =>
            this.raw.POST("/records", { body: { records: batch.rows }, signal }),
          );
          mergeBatch(result, batch, answer);
        } catch (error) {
          if (batch.start === 0) throw error;
          throw new PartialWriteError(error, result, batch.start);
        }
      }
      return result;
    },
    /** GET /records: the workspace's records across entities, newest first, across pages. */
    list: (query: T.RecordsQuery = {}, options: CallOptions = {}): Pages<T.ListedRecord, T.RecordsPage> =>
      new Pages(
        (before) =>
          this.call(SAFE, options, (signal) =>
            this.raw.GET("/records", {
              params: { query: { ...query, before: before as string | undefined } },
              signal,
            }),
          ),
        (page) => page.records,
        (page) => page.next_before,
      ),
    /** GET /records/{id}: one full record. */
    get: (id: string, options: CallOptions = {}): Promise<T.StoredRecord> =>
      this.call(SAFE, options, (signal) =>
        this.raw.GET("/records/{id}", { params: { path: { id } }, signal }),
      ),
  };

  /** The server's write limits, asked once per client (a server that does not say has the defaults). */
  private writeLimits(signal?: AbortSignal): Promise<WriteLimits> {
    this.limits ??= this.workspace({ signal }).then(
      (info) => (info as { limits?: WriteLimits }).limits ?? DEFAULT_LIMITS,
    );
    this.limits.catch(() => {
      this.limits = undefined;
    });
    return this.limits;
  }

  /** GET /timeline, newest first, across pages. */
  timeline(query: T.TimelineQuery, options: CallOptions = {}): Pages<T.TimelineRow, T.TimelinePage> {
    return this.pagesBefore(
      options,
      (before_seq, signal) =>
        this.raw.GET("/timeline", { params: { query: { ...query, before_seq } }, signal }),
      (page) => page.records,
    );
  }

  /** GET /document/history: every version of one keyed slot, newest first, across pages. */
  history(query: T.HistoryQuery, options: CallOptions = {}): Pages<T.HistoryVersion, T.HistoryPage> {
    return this.pagesBefore(
      options,
      (before_seq, signal) =>
        this.raw.GET("/document/history", { params: { query: { ...query, before_seq } }, signal }),
      (page) => page.versions,
    );
  }

  /** GET /entities: the workspace's entities in name order, across pages. */
  entities(query: T.EntitiesQuery = {}, options: CallOptions = {}): Pages<T.EntitySummary, T.EntitiesPage> {
    return new Pages(
      (after) =>
        this.call(SAFE, options, (signal) =>
          this.raw.GET("/entities", {
            params: { query: { ...query, after: after as string | undefined } },
            signal,
          }),
        ),
      (page) => page.entities,
      (page) => page.next_after,
    );
  }

  /** GET /document: an entity's current beliefs and retractions. */
  document(query: T.DocumentQuery, options: CallOptions = {}): Promise<T.EngramDocument> {
    return this.call(SAFE, options, (signal) => this.raw.GET("/document", { params: { query }, signal }));
  }

  /** POST /search with a SearchSpec. */
  search(spec: T.SearchSpec, options: CallOptions = {}): Promise<T.SearchResponse> {
    return this.call(SAFE, options, (signal) => this.raw.POST("/search", { body: spec, signal }));
  }

  readonly views = {
    /** GET /views: every loaded view version. */
    list: (options: CallOptions = {}) =>
      this.call(SAFE, options, (signal) => this.raw.GET("/views", { signal })),
    /** POST /views/{name}/query with the view's parameters. */
    query: (
      name: string,
      params: Record<string, unknown> = {},
      options: CallOptions = {},
    ): Promise<T.ViewResponse> =>
      this.call(SAFE, options, (signal) =>
        this.raw.POST("/views/{name}/query", { params: { path: { name } }, body: params, signal }),
      ),
  };

  readonly artifacts = {
    /** POST /artifacts/{name}/render: a deterministic render and its manifest. */
    render: (
      name: string,
      params: Record<string, unknown> = {},
      options: CallOptions = {},
    ): Promise<T.RenderResponse> =>
      this.call(SAFE, options, (signal) =>
        this.raw.POST("/artifacts/{name}/render", { params: { path: { name } }, body: params, signal }),
      ),
  };

  /** POST /answer: a cited answer (retried only when it saves nothing). */
  answer(request: T.AnswerRequest, options: CallOptions = {}): Promise<T.AnswerResponse> {
    const safe = request.save === true ? UNSAFE : SAFE;
    return this.call(safe, options, (signal) => this.raw.POST("/answer", { body: request, signal }));
  }

  /** GET /context: a prompt-ready context for an entity and task. */
  context(query: T.ContextQuery, options: CallOptions = {}): Promise<T.ContextResponse> {
    return this.call(SAFE, options, (signal) => this.raw.GET("/context", { params: { query }, signal }));
  }

  /** POST /erase: irreversible; never retried. */
  erase(request: T.EraseRequest, options: CallOptions = {}): Promise<T.EraseResponse> {
    return this.call(UNSAFE, options, (signal) => this.raw.POST("/erase", { body: request, signal }));
  }

  /** GET /tools: the workspace's MCP tools with their schemas. */
  tools(options: CallOptions = {}): Promise<T.ToolsResponse> {
    return this.call(SAFE, options, (signal) => this.raw.GET("/tools", { signal }));
  }

  /**
   * Replays a consumer's changes (GET /delta) page by page: `handler` gets each page, and the
   * cursor (POST /cursor) moves past it only after the handler resolves. Returns when caught up.
   */
  consume(
    consumer: string,
    query: T.DeltaQuery,
    handler: (page: T.DeltaPage) => unknown,
    options: ConsumeOptions = {},
  ): Promise<ConsumeResult> {
    return consumeDelta(
      {
        page: (name, q, signal) =>
          this.call(SAFE, { signal }, (s) =>
            this.raw.GET("/delta", { params: { query: { ...q, consumer: name } }, signal: s }),
          ),
        // Moving a cursor to the position it holds is a no-op, so the move is retried.
        advance: (body) => this.call(SAFE, {}, () => this.raw.POST("/cursor", { body })),
      },
      consumer,
      query,
      handler,
      options,
    );
  }

  readonly catalog = {
    /** GET /catalog: the installed package and its hash. */
    get: (options: CallOptions = {}): Promise<T.CatalogInfo> =>
      this.call(SAFE, options, (signal) => this.raw.GET("/catalog", { signal })),
    /** POST /catalog: publishes a package (files by relative path); dryRun only reports compatibility. */
    publish: (
      request: T.PublishRequest,
      options: CallOptions & { dryRun?: boolean } = {},
    ): Promise<T.PublishResponse> =>
      // The same package and files publish to the same catalog: a repeat changes nothing.
      this.call(SAFE, options, (signal) =>
        this.raw.POST("/catalog", {
          body: request,
          params: { query: options.dryRun ? { dry_run: true } : {} },
          signal,
        }),
      ),
  };

  readonly derivations = {
    /** POST /processors/{name}/run: queues a derivation for an entity (not retried: a repeat may run it twice). */
    run: (name: string, entity: string, options: CallOptions = {}): Promise<T.RunQueued> =>
      this.call(UNSAFE, options, (signal) =>
        this.raw.POST("/processors/{name}/run", { params: { path: { name } }, body: { entity }, signal }),
      ),
  };

  readonly runs = {
    /** GET /runs: run summaries, newest first, across pages. */
    list: (query: T.RunsQuery = {}, options: CallOptions = {}): Pages<T.RunSummary, T.RunsPage> =>
      this.pagesBefore(
        options,
        (before_seq, signal) =>
          this.raw.GET("/runs", { params: { query: { ...query, before_seq } }, signal }),
        (page) => page.runs,
      ),
    /** GET /runs/{id}: one run in full, with its emitted records. */
    get: (id: string, options: CallOptions = {}): Promise<T.Run> =>
      this.call(SAFE, options, (signal) => this.raw.GET("/runs/{id}", { params: { path: { id } }, signal })),
  };

  readonly jobs = {
    /** GET /jobs/{id}: a background job's state. */
    get: (id: string, options: CallOptions = {}): Promise<T.Job> =>
      this.call(SAFE, options, (signal) => this.raw.GET("/jobs/{id}", { params: { path: { id } }, signal })),
    /** POST /jobs/{id}/retry: requeues a dead job. */
    retry: (id: string, options: CallOptions = {}): Promise<T.Job> =>
      this.call(UNSAFE, options, (signal) =>
        this.raw.POST("/jobs/{id}/retry", { params: { path: { id } }, signal }),
      ),
    /** Polls GET /jobs/{id} until the job has finished (succeeded, dead or cancelled). */
    wait: async (id: string, options: CallOptions & { intervalMs?: number } = {}): Promise<T.Job> => {
      for (;;) {
        const job = await this.jobs.get(id, options);
        if (FINISHED_JOB_STATES.has(job.state)) return job;
        await delay(options.intervalMs ?? 500, options.signal);
      }
    },
  };

  /** The workspace's keys; an admin key's only (403 key_scope otherwise). */
  readonly keys = {
    /** GET /keys: every key with its scope and prefix, oldest first; never a key. */
    list: async (options: CallOptions = {}): Promise<T.KeySummary[]> =>
      (await this.call(SAFE, options, (signal) => this.raw.GET("/keys", { signal }))).keys,
    /** POST /keys: a read_write or read_only key, shown only in this reply. */
    create: (request: T.KeyRequest, options: CallOptions = {}): Promise<T.CreatedKey> =>
      this.call(UNSAFE, options, (signal) => this.raw.POST("/keys", { body: request, signal })),
    /** DELETE /keys/{id}: the key answers 401 from its next request (repeating it is harmless). */
    revoke: async (id: string, options: CallOptions = {}): Promise<void> => {
      await this.call(SAFE, options, (signal) =>
        this.raw.DELETE("/keys/{id}", { params: { path: { id } }, signal }),
      );
    },
  };

  /**
   * Logs messages of a conversation with `entity` (the user) into the conversation starter's
   * `messages` collection, where its extract_memories derivation reads them.
   */
  remember(
    entity: string,
    messages: ConversationMessage[],
    options: CallOptions & RememberOptions = {},
  ): Promise<WriteResult> {
    return this.records.write(messageRows(entity, messages, options), options);
  }

  /** What memory holds about `entity` for a query: the conversation starter's `recall` view. */
  recall(entity: string, query: string, options: CallOptions & RecallOptions = {}): Promise<T.ViewResponse> {
    return this.views.query(options.view ?? "recall", recallArguments(entity, query, options), options);
  }

  /** POST /promote: activates a reviewed run's draft output (a repeat answers already_promoted). */
  promote(request: T.PromoteRequest, options: CallOptions = {}): Promise<T.PromoteResponse> {
    return this.call(SAFE, options, (signal) => this.raw.POST("/promote", { body: request, signal }));
  }
}
