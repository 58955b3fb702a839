// Every metric Engram exports (docs/operations.md, "Metrics"): names, labels, buckets. No label
// carries a workspace, an entity or record text: routes are patterns, the rest fixed vocabularies
// (job kinds and states, search modes) and model endpoints (a MODEL_ENDPOINTS URL, fake, local or other:
// never a name a workspace's catalog chose, which would make the label set unbounded).
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

// Reads take a few milliseconds (DESIGN.md targets 5-30 ms): buckets from 1 ms to 10 s.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// A job is a batch of enrichment or a derivation run waiting on models: up to minutes.
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export function defineMetrics(registry: Registry) {
  const registers = [registry];
  return {
    httpRequests: new Counter({
      name: "engram_http_requests_total",
      help: "HTTP requests answered, by method, route pattern (unmatched: no route) and status",
      labelNames: ["method", "route", "status"] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: "engram_http_request_duration_seconds",
      help: "Time from receiving an HTTP request to its response, by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    searchDuration: new Histogram({
      name: "engram_search_duration_seconds",
      help: "Time a completed search took, by mode (sources: a combined search); views and renders included",
      labelNames: ["mode"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    jobs: new Gauge({
      name: "engram_jobs",
      help: "Jobs queued, running or dead, by kind and state, read at scrape time",
      labelNames: ["kind", "state"] as const,
      registers,
    }),
    jobDuration: new Histogram({
      name: "engram_job_duration_seconds",
      help: "Time one attempt at a job ran in this process, by kind and outcome",
      labelNames: ["kind", "outcome"] as const,
      buckets: JOB_BUCKETS,
      registers,
    }),
    jobAttempts: new Counter({
      name: "engram_job_attempts_total",
      help: "Attempts at jobs this process ran, by kind",
      labelNames: ["kind"] as const,
      registers,
    }),
    jobsDead: new Counter({
      name: "engram_jobs_dead_total",
      help: "Jobs this process moved to the dead state, by kind",
      labelNames: ["kind"] as const,
      registers,
    }),
    oldestUnready: new Gauge({
      name: "engram_oldest_unready_record_age_seconds",
      help: "Age of the oldest record not yet ready (enrichment lag), 0 when every record is ready; read at scrape time",
      registers,
    }),
    modelCalls: new Counter({
      name: "engram_model_calls_total",
      help: "Requests sent to model providers, by endpoint (a MODEL_ENDPOINTS URL, fake, local or other), operation (embed, score, json, rerank) and attempt (first, or retry after a transient failure)",
      labelNames: ["endpoint", "operation", "attempt"] as const,
      registers,
    }),
    modelFailures: new Counter({
      name: "engram_model_failures_total",
      help: "Requests to model providers that failed (no reply, an error status, or an unusable reply), by endpoint, operation and attempt",
      labelNames: ["endpoint", "operation", "attempt"] as const,
      registers,
    }),
    modelTokens: new Counter({
      name: "engram_model_tokens_total",
      help: "Tokens of JSON tasks (derivations, answers), by endpoint and type (prompt, completion); estimated where the provider reports none",
      labelNames: ["endpoint", "type"] as const,
      registers,
    }),
    poolOpen: new Gauge({
      name: "engram_db_pool_connections",
      help: "Database connections open (embedded storage: its one connection)",
      registers,
    }),
    poolMax: new Gauge({
      name: "engram_db_pool_max",
      help: "Database connections the pool may open (DATABASE_POOL_MAX; embedded storage: 1)",
      registers,
    }),
    poolIdle: new Gauge({
      name: "engram_db_pool_idle",
      help: "Database connections open and idle",
      registers,
    }),
    poolWaiting: new Gauge({
      name: "engram_db_pool_waiting",
      help: "Callers waiting for a database connection",
      registers,
    }),
    databaseBusy: new Counter({
      name: "engram_database_busy_total",
      help: "Requests refused with 503 database_busy (no connection free in time, or concurrent work to retry)",
      registers,
    }),
    databaseUp: new Gauge({
      name: "engram_database_up",
      help: "1 when this scrape read the database (engram_jobs, engram_oldest_unready_record_age_seconds), else 0",
      registers,
    }),
  };
}

export type Definitions = ReturnType<typeof defineMetrics>;
