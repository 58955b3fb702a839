import { describe, expect, it } from "vitest";
import {
  ConfigError,
  configuredSecrets,
  loadConfig,
  parseCorsOrigins,
  parseModelEndpoints,
} from "../../src/config/index.js";

describe("configuration", () => {
  it("uses the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      databaseUrl: undefined,
      dataDir: "./.engram",
      logLevel: "info",
      corsOrigins: [],
      maxQueryChars: 8192,
      maxBatchRecords: 1000,
      maxResponseBytes: 8388608,
      documentMaxRecords: 2000,
      renderBudgetTokens: 16000,
      graphLimitMax: 500,
      artifactUseRetentionDays: 90,
      artifactUsePurgeBatch: 500,
      backfillBatch: 200,
      enrichLlmBatch: 16,
      enrichEmbedBatch: 64,
      additiveVerifyMaxRows: 50000,
      maxFeedbackCommentChars: 4000,
      maxFeedbackEvidenceChars: 16000,
      testDatabase: false,
      vectorBulkMinRows: 5000,
      vectorExactRows: 1000,
      vectorBuildMemory: "1GB",
      vectorLayout: "auto",
    });
  });

  it("VECTOR_BUILD_MEMORY takes a PostgreSQL size and refuses anything else", () => {
    expect(loadConfig({ VECTOR_BUILD_MEMORY: "512MB" }).vectorBuildMemory).toBe("512MB");
    for (const bad of ["1 GB", "0MB", "2gb", "1TB", "1GB; DROP TABLE x"]) {
      expect(() => loadConfig({ VECTOR_BUILD_MEMORY: bad })).toThrow(/VECTOR_BUILD_MEMORY: expected a size/);
    }
    expect(() => loadConfig({ VECTOR_BULK_MIN_ROWS: "0" })).toThrow(/VECTOR_BULK_MIN_ROWS/);
  });

  it("VECTOR_EXACT_ROWS takes a whole number, 0 walking every workspace's index", () => {
    expect(loadConfig({ VECTOR_EXACT_ROWS: "0" }).vectorExactRows).toBe(0);
    expect(loadConfig({ VECTOR_EXACT_ROWS: "50000" }).vectorExactRows).toBe(50000);
    for (const bad of ["-1", "ten", "1.5"]) {
      expect(() => loadConfig({ VECTOR_EXACT_ROWS: bad })).toThrow(/VECTOR_EXACT_ROWS/);
    }
  });

  it("VECTOR_LAYOUT forces the exact layout on a server, and is refused without one", () => {
    const server = { DATABASE_URL: "postgres://u@localhost:5432/x" };
    expect(loadConfig({ ...server, VECTOR_LAYOUT: "exact" }).vectorLayout).toBe("exact");
    expect(loadConfig({ ...server, VECTOR_LAYOUT: "AUTO" }).vectorLayout).toBe("auto");
    expect(() => loadConfig({ ...server, VECTOR_LAYOUT: "hnsw" })).toThrow(
      /VECTOR_LAYOUT: expected auto or exact/,
    );
    expect(() => loadConfig({ VECTOR_LAYOUT: "exact" })).toThrow(
      /VECTOR_LAYOUT: exact applies to a PostgreSQL server/,
    );
  });

  it("reads values from the environment", () => {
    const config = loadConfig({
      PORT: "9000",
      HOST: "0.0.0.0",
      DATABASE_URL: "postgres://u@localhost:5432/x",
      TEST_DATABASE: "true",
      GRAPH_LIMIT_MAX: "100",
    });
    expect(config.port).toBe(9000);
    expect(config.host).toBe("0.0.0.0");
    expect(config.databaseUrl).toBe("postgres://u@localhost:5432/x");
    expect(config.testDatabase).toBe(true);
    expect(config.graphLimitMax).toBe(100);
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["MAX_BATCH_RECORDS", "0"],
    ["MAX_BATCH_RECORDS", "-5"],
    ["RENDER_BUDGET_TOKENS", "1.5"],
    ["GRAPH_LIMIT_MAX", "501"],
    ["TEST_DATABASE", "maybe"],
    ["LOG_LEVEL", "loud"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["DATABASE_URL", "not a url"],
    ["API_CORS_ORIGINS", "*"],
    ["ADMIN_TOKEN", "short-token"],
    ["ADMIN_TOKEN", "sixteen chars ok but spaced"],
    ["METRICS_TOKEN", "short-token"],
  ])("refuses %s=%s with a message naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});

describe("API_CORS_ORIGINS", () => {
  it("is empty when unset or blank", () => {
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins("  ")).toEqual([]);
  });

  it("accepts a single origin", () => {
    expect(parseCorsOrigins("https://app.example.com")).toEqual(["https://app.example.com"]);
  });

  it("accepts a comma-separated list", () => {
    expect(parseCorsOrigins("https://a.example.com, http://localhost:3000")).toEqual([
      "https://a.example.com",
      "http://localhost:3000",
    ]);
  });

  it("accepts a JSON array", () => {
    expect(parseCorsOrigins('["https://a.example.com","http://localhost:3000"]')).toEqual([
      "https://a.example.com",
      "http://localhost:3000",
    ]);
  });

  it.each([
    ["*"],
    ["https://*.example.com"],
    ['["*"]'],
    ["https://a.example.com/path"],
    ["a.example.com"],
    ["[1,2]"],
    ["[not json"],
    ['{"a":1}'],
  ])("refuses %s", (value) => {
    expect(() => parseCorsOrigins(value)).toThrow(/API_CORS_ORIGINS/);
  });
});

describe("MODEL_ENDPOINTS", () => {
  it("is empty when unset: only fake providers", () => {
    expect(loadConfig({}).modelEndpoints).toEqual([]);
    expect(parseModelEndpoints(" , ")).toEqual([]);
  });

  it("reads URL and URL=VARIABLE entries, one trailing / dropped", () => {
    expect(
      parseModelEndpoints(
        "https://api.openai.com/v1/=OPENAI_API_KEY, http://localhost:11434/v1 ,http://vllm:8000/v1?x=y",
      ),
    ).toEqual([
      { url: "https://api.openai.com/v1", variable: "OPENAI_API_KEY" },
      { url: "http://localhost:11434/v1", variable: null },
      { url: "http://vllm:8000/v1?x=y", variable: null },
    ]);
  });

  it.each([
    ["ftp://files.example.com"],
    ["not a url=KEY"],
    ["https://a.example.com/v1=A,https://a.example.com/v1/=B"],
  ])("refuses %s", (value) => {
    expect(() => parseModelEndpoints(value)).toThrow(/MODEL_ENDPOINTS/);
  });
});

describe("configuredSecrets: what a provider's words are redacted of", () => {
  it("holds the metrics and operator tokens, the database URL and its password as written and decoded", () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://engram:p%40ss-w0rd@db.internal:5432/engram",
      METRICS_TOKEN: "metrics-token-0123456789",
      ADMIN_TOKEN: "admin-token-0123456789",
    });
    expect(configuredSecrets(config).sort()).toEqual(
      [
        "metrics-token-0123456789",
        "admin-token-0123456789",
        "postgres://engram:p%40ss-w0rd@db.internal:5432/engram",
        "p%40ss-w0rd",
        "p@ss-w0rd",
      ].sort(),
    );
  });

  it("is empty when the server holds none", () => {
    expect(configuredSecrets(loadConfig({}))).toEqual([]);
  });
});
