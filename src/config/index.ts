// Typed configuration, read once from the environment at start. A bad value stops
// startup with a ConfigError naming the variable.
import { fileURLToPath } from "node:url";
import type { VectorLayout } from "../platform/db/index.js";

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: LogLevel;
  corsOrigins: string[];
  maxQueryChars: number;
  maxBatchRecords: number;
  maxResponseBytes: number;
  documentMaxRecords: number;
  renderBudgetTokens: number;
  graphLimitMax: number;
  artifactUseRetentionDays: number;
  artifactUsePurgeBatch: number;
  backfillBatch: number;
  enrichLlmBatch: number;
  enrichEmbedBatch: number;
  additiveVerifyMaxRows: number;
  maxFeedbackCommentChars: number;
  maxFeedbackEvidenceChars: number;
  /** Most records one erasure may remove (its derived closure included). */
  eraseMaxRecords: number;
  testDatabase: boolean;
  /** A YAML map of task id (or sha256:<prompt hash>) to output for the fake model provider. */
  fakeModelScript: string;
  /** Where the local embedder keeps its word-vector cache; undefined: node_modules/.cache/engram. */
  wordVectorsCache: string | undefined;
  /** How long a stalled worker keeps a job before another worker takes it over. */
  workerLeaseSeconds: number;
  /** A deferred vector tail at least this long is sealed by building its space's index anew. */
  vectorBulkMinRows: number;
  /** A workspace holding at most this many vectors of a space scans them exactly, not its index. */
  vectorExactRows: number;
  /** maintenance_work_mem of such a build (a PostgreSQL memory setting: 512MB, 2GB). */
  vectorBuildMemory: string;
  /** `auto`: pgvector with HNSW where the server offers it; `exact`: never, exact scans only. */
  vectorLayout: VectorLayout;
  /** Connections of the server pool (a request waiting over 5 s for one gets 503 database_busy). */
  databasePoolMax: number;
  /** Requests per window per workspace key (0: no limit), and the window. */
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** The bearer token of GET /metrics; unset, there is no /metrics. */
  metricsToken: string | undefined;
  /** The bearer token of the operator API (/admin/…); unset, every /admin route is a 404. */
  adminToken: string | undefined;
  /** Most fields one workspace's catalog may declare indexed (filter or sort; docs/catalog.md). */
  maxIndexedFields: number;
  /** MODEL_ENDPOINTS: where a catalog's model providers may send requests, and with which secret. */
  modelEndpoints: ModelEndpoint[];
}

/** A URL a catalog's providers may use, and the one variable whose value may be sent there. */
export interface ModelEndpoint {
  /** Without a trailing "/". */
  url: string;
  /** The api_key_env a provider of this URL must name, or null for a server without keys. */
  variable: string | null;
}

/** The bundled script that lets the example package's derivation run offline (examples/). */
export const DEFAULT_FAKE_MODEL_SCRIPT = fileURLToPath(
  new URL("../../examples/fake-model.yaml", import.meta.url),
);

const VECTOR_LAYOUTS: readonly VectorLayout[] = ["auto", "exact"];

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`invalid ${variable}: ${problem}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Reads a variable; blank counts as unset so `FOO= cmd` falls back to the default. */
function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(name, `expected a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (["true", "1", "yes"].includes(value)) return true;
  if (["false", "0", "no"].includes(value)) return false;
  throw new ConfigError(name, `expected true or false, got "${value}"`);
}

function databaseUrl(env: Env): string | undefined {
  const value = raw(env, "DATABASE_URL");
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError("DATABASE_URL", "not a URL (expected postgres://user@host:port/database)");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(
      "DATABASE_URL",
      `expected a postgres:// or postgresql:// URL, got ${url.protocol}//`,
    );
  }
  return value;
}

/**
 * API_CORS_ORIGINS: a comma-separated list, a JSON array, or a single origin. Each entry
 * must be an exact origin (scheme://host[:port]); wildcards are refused.
 */
export function parseCorsOrigins(value: string | undefined): string[] {
  const name = "API_CORS_ORIGINS";
  const text = value?.trim();
  if (!text) return [];
  let entries: unknown[];
  if (text.startsWith("[")) {
    try {
      entries = JSON.parse(text);
    } catch {
      throw new ConfigError(name, "looks like a JSON array but does not parse");
    }
    if (!Array.isArray(entries)) throw new ConfigError(name, "expected a JSON array of origins");
  } else {
    entries = text.split(",");
  }
  const origins: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== "string") throw new ConfigError(name, "every entry must be a string");
    const origin = entry.trim();
    if (!origin) continue;
    if (origin.includes("*")) throw new ConfigError(name, `wildcards are not allowed ("${origin}")`);
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(name, `"${origin}" is not an origin (expected scheme://host[:port])`);
    }
    if (parsed.origin === "null" || parsed.origin !== origin.replace(/\/$/, "")) {
      throw new ConfigError(name, `"${origin}" is not an exact origin (scheme://host[:port], no path)`);
    }
    if (!origins.includes(parsed.origin)) origins.push(parsed.origin);
  }
  return origins;
}

function logLevel(env: Env): LogLevel {
  const value = raw(env, "LOG_LEVEL")?.toLowerCase() ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError("LOG_LEVEL", `expected one of ${LOG_LEVELS.join(", ")}, got "${value}"`);
  }
  return value as LogLevel;
}

/**
 * VECTOR_LAYOUT=exact keeps a PostgreSQL server on the exact layout even where pgvector is
 * available; embedded storage always has pgvector, so there the setting is refused.
 */
function vectorLayout(env: Env, databaseUrl: string | undefined): VectorLayout {
  const value = raw(env, "VECTOR_LAYOUT")?.toLowerCase() ?? "auto";
  if (!(VECTOR_LAYOUTS as readonly string[]).includes(value)) {
    throw new ConfigError("VECTOR_LAYOUT", `expected auto or exact, got "${value}"`);
  }
  if (value === "exact" && !databaseUrl) {
    throw new ConfigError(
      "VECTOR_LAYOUT",
      "exact applies to a PostgreSQL server (DATABASE_URL); embedded storage always uses pglite/hnsw",
    );
  }
  return value as VectorLayout;
}

/**
 * The deployment's own secrets, redacted from any text a model provider sends back
 * (docs/operations.md, "Model endpoints"): the metrics token and the database URL and password.
 * The values of the MODEL_ENDPOINTS variables are added where requests are sent.
 */
export function configuredSecrets(
  config: Pick<Config, "metricsToken" | "adminToken" | "databaseUrl">,
): string[] {
  const secrets = [config.metricsToken, config.adminToken, config.databaseUrl];
  if (config.databaseUrl) {
    const password = new URL(config.databaseUrl).password;
    if (password) secrets.push(password, decodedComponent(password));
  }
  return secrets.filter((secret): secret is string => secret !== undefined && secret !== "");
}

/** A percent-encoded URL part as written to the server, or as it came when it is not valid encoding. */
function decodedComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Long enough not to be guessed, and without whitespace (it is sent as a bearer token). */
const TOKEN_MIN_CHARS = 16;

/** METRICS_TOKEN or ADMIN_TOKEN: a bearer token of 16 or more characters without whitespace. */
function bearerToken(env: Env, name: "METRICS_TOKEN" | "ADMIN_TOKEN"): string | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  if (/\s/.test(value)) throw new ConfigError(name, "must not contain whitespace");
  if (value.length < TOKEN_MIN_CHARS) {
    throw new ConfigError(name, `expected at least ${TOKEN_MIN_CHARS} characters`);
  }
  return value;
}

/** One trailing "/" dropped, so that `…/v1` and `…/v1/` name one endpoint. */
export function endpointUrl(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}

/**
 * MODEL_ENDPOINTS: a comma-separated list of `URL` or `URL=VARIABLE` (docs/operations.md,
 * "Model endpoints"). Each URL appears once, so it pairs with exactly one variable.
 */
export function parseModelEndpoints(value: string | undefined): ModelEndpoint[] {
  const name = "MODEL_ENDPOINTS";
  const endpoints: ModelEndpoint[] = [];
  for (const entry of (value ?? "").split(",")) {
    const text = entry.trim();
    if (!text) continue;
    const at = text.lastIndexOf("=");
    // A "=" inside the URL's query is not a pairing: the variable part is a plain name.
    const paired = at > 0 && /^[A-Z_][A-Z0-9_]*$/.test(text.slice(at + 1).trim());
    const urlText = (paired ? text.slice(0, at) : text).trim();
    const variable = paired ? text.slice(at + 1).trim() : null;
    if (!URL.canParse(urlText) || !/^https?:$/.test(new URL(urlText).protocol)) {
      throw new ConfigError(name, `"${urlText}" is not an http(s) URL (entries are URL or URL=VARIABLE)`);
    }
    const url = endpointUrl(urlText);
    if (endpoints.some((endpoint) => endpoint.url === url)) {
      throw new ConfigError(name, `${url} is listed twice (a URL pairs with one variable)`);
    }
    endpoints.push({ url, variable });
  }
  return endpoints;
}

function memorySetting(env: Env, name: string, fallback: string): string {
  const value = raw(env, name) ?? fallback;
  if (!/^[1-9]\d{0,6}(kB|MB|GB)$/.test(value)) {
    throw new ConfigError(name, `expected a size such as 512MB or 2GB, got "${value}"`);
  }
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const url = databaseUrl(env);
  return {
    port: int(env, "PORT", 8080, 0, 65535),
    host: raw(env, "HOST") ?? "127.0.0.1",
    databaseUrl: url,
    dataDir: raw(env, "DATA_DIR") ?? "./.engram",
    logLevel: logLevel(env),
    corsOrigins: parseCorsOrigins(env.API_CORS_ORIGINS),
    maxQueryChars: int(env, "MAX_QUERY_CHARS", 8192, 1),
    maxBatchRecords: int(env, "MAX_BATCH_RECORDS", 1000, 1),
    maxResponseBytes: int(env, "MAX_RESPONSE_BYTES", 8_388_608, 1024),
    documentMaxRecords: int(env, "DOCUMENT_MAX_RECORDS", 2000, 1),
    renderBudgetTokens: int(env, "RENDER_BUDGET_TOKENS", 16_000, 1),
    graphLimitMax: int(env, "GRAPH_LIMIT_MAX", 500, 1, 500),
    artifactUseRetentionDays: int(env, "ARTIFACT_USE_RETENTION_DAYS", 90, 1),
    artifactUsePurgeBatch: int(env, "ARTIFACT_USE_PURGE_BATCH", 500, 1),
    backfillBatch: int(env, "BACKFILL_BATCH", 200, 1),
    enrichLlmBatch: int(env, "ENRICH_LLM_BATCH", 16, 1),
    enrichEmbedBatch: int(env, "ENRICH_EMBED_BATCH", 64, 1),
    additiveVerifyMaxRows: int(env, "ADDITIVE_VERIFY_MAX_ROWS", 50_000, 0),
    maxFeedbackCommentChars: int(env, "MAX_FEEDBACK_COMMENT_CHARS", 4000, 1),
    maxFeedbackEvidenceChars: int(env, "MAX_FEEDBACK_EVIDENCE_CHARS", 16_000, 1),
    eraseMaxRecords: int(env, "ERASE_MAX_RECORDS", 100_000, 1),
    testDatabase: bool(env, "TEST_DATABASE", false),
    fakeModelScript: raw(env, "FAKE_MODEL_SCRIPT") ?? DEFAULT_FAKE_MODEL_SCRIPT,
    wordVectorsCache: raw(env, "WORD_VECTORS_CACHE"),
    workerLeaseSeconds: int(env, "WORKER_LEASE_SECONDS", 60, 1, 3600),
    databasePoolMax: int(env, "DATABASE_POOL_MAX", 10, 1, 1000),
    rateLimitMax: int(env, "RATE_LIMIT_MAX", 12_000, 0),
    rateLimitWindowMs: int(env, "RATE_LIMIT_WINDOW_MS", 60_000, 1),
    metricsToken: bearerToken(env, "METRICS_TOKEN"),
    adminToken: bearerToken(env, "ADMIN_TOKEN"),
    maxIndexedFields: int(env, "MAX_INDEXED_FIELDS", 32, 0, 1000),
    modelEndpoints: parseModelEndpoints(env.MODEL_ENDPOINTS),
    vectorBulkMinRows: int(env, "VECTOR_BULK_MIN_ROWS", 5000, 1),
    vectorExactRows: int(env, "VECTOR_EXACT_ROWS", 1_000, 0),
    vectorBuildMemory: memorySetting(env, "VECTOR_BUILD_MEMORY", "1GB"),
    vectorLayout: vectorLayout(env, url),
  };
}
