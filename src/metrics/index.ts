// The metrics of one server (its HTTP app and the worker beside it): a registry of its own, so
// that several apps in one process (tests) count apart, plus the process metrics every registry
// shares. Created only when METRICS_TOKEN is set; the HTTP app, the worker, the model layer and
// search report to it through the hooks below, and GET /metrics scrapes it.
import { Registry } from "prom-client";
import type { ModelCall } from "../models/index.js";
import type { Db } from "../platform/db/index.js";
import type { SearchDeps } from "../search/index.js";
import type { JobAttempt } from "../worker/index.js";
import { defineMetrics } from "./definitions.js";
import { processMetrics } from "./process.js";
import { readAtScrape } from "./scrape.js";

export interface RequestServed {
  method: string;
  /** The route's pattern (/records/:id), or `unmatched`. */
  route: string;
  status: number;
  seconds: number;
}

export interface Metrics {
  /** The Prometheus text format's content type (version 0.0.4). */
  readonly contentType: string;
  /** Every metric in the text format, the database's gauges read now. */
  scrape(): Promise<string>;
  requestServed(request: RequestServed): void;
  databaseBusy(): void;
  searchDone: NonNullable<SearchDeps["onSearch"]>;
  jobAttempt(attempt: JobAttempt): void;
  modelCall(call: ModelCall): void;
}

export function createMetrics(db: Db): Metrics {
  const own = new Registry();
  const m = defineMetrics(own);
  const registry = Registry.merge([processMetrics(), own]);
  const jobKinds = new Set<string>();
  return {
    contentType: registry.contentType,
    async scrape() {
      await readAtScrape(db, m, jobKinds);
      return registry.metrics();
    },
    requestServed({ method, route, status, seconds }) {
      const labels = { method, route, status: String(status) };
      m.httpRequests.inc(labels);
      m.httpDuration.observe(labels, seconds);
    },
    databaseBusy: () => m.databaseBusy.inc(),
    searchDone: (mode, seconds) => m.searchDuration.observe({ mode }, seconds),
    jobAttempt({ kind, outcome, seconds }) {
      m.jobAttempts.inc({ kind });
      m.jobDuration.observe({ kind, outcome }, seconds);
      if (outcome === "dead") m.jobsDead.inc({ kind });
    },
    modelCall({ endpoint, operation, attempt, ok, usage }) {
      m.modelCalls.inc({ endpoint, operation, attempt });
      if (!ok) m.modelFailures.inc({ endpoint, operation, attempt });
      if (usage) {
        m.modelTokens.inc({ endpoint, type: "prompt" }, usage.prompt_tokens);
        m.modelTokens.inc({ endpoint, type: "completion" }, usage.completion_tokens);
      }
    },
  };
}
