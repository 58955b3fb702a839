// Retries against a stand-in server whose answers the test scripts: 503 then 200, Retry-After,
// network failures, and the requests that must never be sent twice.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Engram, EngramError } from "@engram/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

const problem =
  (status: number, code: string, headers: Record<string, string> = {}): Answer =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "application/problem+json", ...headers });
    res.end(
      JSON.stringify({ type: "about:blank", title: "Busy", status, code, detail: `${code} for a test` }),
    );
  };
const json =
  (body: unknown): Answer =>
  (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
const hangUp: Answer = (req) => req.socket.destroy();

const LIMITS = { limits: { max_batch_records: 1000, max_body_bytes: 1 << 20 } };
const WRITTEN = {
  inserted: [{ index: 0, id: "00000000-0000-4000-8000-000000000001", ready: true }],
  duplicates: [],
  job_id: null,
};

describe("retries", () => {
  let server: Server;
  let url: string;
  let script: Answer[] = [];
  let seen: { method: string; path: string; auth: string | undefined }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", auth: req.headers.authorization });
      req.resume();
      req.on("end", () => {
        const next = script.shift() ?? problem(500, "internal");
        next(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    script = [];
    seen = [];
  });

  const client = () => new Engram({ url, key: "egk_test", retry: { baseDelayMs: 1, maxDelayMs: 5 } });

  it("retries a read on 503 and then succeeds, sending the key every time", async () => {
    script = [
      problem(503, "database_busy"),
      problem(429, "rate_limited"),
      json({ records: [], next_before_seq: null, truncated: false }),
    ];
    expect(await client().timeline({ entity: "e" }).toArray()).toEqual([]);
    expect(seen.map((s) => s.path)).toEqual(Array(3).fill("/timeline?entity=e"));
    expect(new Set(seen.map((s) => s.auth))).toEqual(new Set(["Bearer egk_test"]));
  });

  it("waits as long as Retry-After says", async () => {
    script = [problem(503, "database_busy", { "retry-after": "1" }), json({ ...LIMITS })];
    const started = Date.now();
    await client().workspace();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
  });

  it("gives up at once when Retry-After is longer than it would wait, telling how long", async () => {
    script = [problem(503, "database_busy", { "retry-after": "120" })];
    const error = await client()
      .workspace()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngramError);
    expect(error).toMatchObject({ status: 503, code: "database_busy", retryAfterMs: 120_000 });
    expect(seen).toHaveLength(1);
  });

  it("stops after the configured attempts", async () => {
    script = Array(5).fill(problem(503, "database_busy"));
    await expect(client().workspace()).rejects.toMatchObject({ code: "database_busy" });
    expect(seen).toHaveLength(4);
  });

  it("retries a write whose rows all carry dedupe keys, after a lost connection too", async () => {
    script = [json(LIMITS), problem(503, "database_busy"), hangUp, json(WRITTEN)];
    const rows = [{ collection: "c", entity: "e", type: "t", dedupe_key: "k1" }];
    expect((await client().records.write(rows)).inserted).toHaveLength(1);
    expect(seen.filter((s) => s.method === "POST")).toHaveLength(3);
  });

  it("never retries a write with a row lacking a dedupe key, an erasure, or a refusal other than 429/503", async () => {
    script = [json(LIMITS), problem(503, "database_busy")];
    const rows = [
      { collection: "c", entity: "e", type: "t", dedupe_key: "k1" },
      { collection: "c", entity: "e", type: "t" },
    ];
    await expect(client().records.write(rows)).rejects.toMatchObject({ code: "database_busy" });
    script = [problem(503, "database_busy")];
    await expect(client().erase({ entity: "e" })).rejects.toMatchObject({ code: "database_busy" });
    script = [problem(422, "request_schema")];
    await expect(client().search({ q: "x" })).rejects.toMatchObject({ status: 422 });
    expect(seen.filter((s) => s.method === "POST")).toHaveLength(3);
  });

  it("does not retry when retries are off", async () => {
    script = [problem(503, "database_busy"), json(LIMITS)];
    const engram = new Engram({ url, key: "egk_test", retry: false });
    await expect(engram.workspace()).rejects.toMatchObject({ code: "database_busy" });
    expect(seen).toHaveLength(1);
  });

  it("cancels a retry's wait when the signal aborts", async () => {
    script = [problem(503, "database_busy", { "retry-after": "30" })];
    const engram = new Engram({ url, key: "egk_test", retry: { maxRetryAfterMs: 60_000 } });
    const controller = new AbortController();
    const pending = engram.workspace({ signal: controller.signal });
    await expect.poll(() => seen.length).toBe(1);
    controller.abort(new Error("stop waiting"));
    await expect(pending).rejects.toThrow("stop waiting");
  });

  it("reads a response that is not problem details as an http_<status> error", async () => {
    script = [
      (_req, res) => {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("no such thing");
      },
    ];
    await expect(client().workspace()).rejects.toMatchObject({ status: 404, code: "http_404" });
  });
});
