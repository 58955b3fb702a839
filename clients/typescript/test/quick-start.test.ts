// The client through the README's quick-start flow against a real `engram serve`: write, read
// back, search, a view, an artifact, context, a typed refusal and erasure.

import { createServer, request as forward } from "node:http";
import type { AddressInfo } from "node:net";
import { Engram, EngramError } from "@engram/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEngram, startEngram } from "../../../test/support/engram-serve.js";
import { waitFor } from "../../../test/support/wait.js";

describe("the client's quick-start flow", () => {
  let server: RunningEngram;
  let engram: Engram;
  beforeAll(async () => {
    server = await startEngram();
    engram = new Engram({ url: server.url, key: server.key });
  });
  afterAll(() => server.stop());

  it("writes, reads back, searches, queries a view, renders an artifact and assembles context", async () => {
    const written = await engram.records.write([
      {
        collection: "customer_events",
        entity: "cust-1",
        type: "ticket",
        text: "Refund requested for a duplicate charge on the March invoice",
        content: { channel: "email", topic: "billing", priority: 4 },
        dedupe_key: "ticket-1",
      },
      {
        collection: "customer_facts",
        entity: "cust-1",
        type: "plan",
        key: "plan",
        text: "On the pro plan since 2024",
        content: { value: "pro", tier: "pro" },
      },
    ]);
    expect(written.inserted.map((row) => row.index)).toEqual([0, 1]);
    const [ticket] = written.inserted;

    const record = await engram.records.get(ticket?.id as string);
    expect(record).toMatchObject({
      entity: "cust-1",
      collection: "customer_events",
      content: { topic: "billing" },
    });

    const timeline = await engram.timeline({ entity: "cust-1" }).toArray();
    expect(timeline.map((row) => row.type)).toEqual(["plan", "ticket"]);
    const doc = await engram.document({ entity: "cust-1" });
    expect(doc.beliefs.map((belief) => belief.key)).toEqual(["plan"]);

    // Search and the view rank once enrichment (embeddings) has made the records ready.
    await waitFor(async () => (await engram.workspace()).counts.unready === 0 || undefined);
    const found = await engram.search({ mode: "hybrid", q: "duplicate charge refund", k: 5 });
    expect(found.hits[0]?.id).toBe(ticket?.id);
    const view = await engram.views.query("customer_history", { customer: "cust-1", question: "refund" });
    expect(JSON.stringify(view)).toContain(ticket?.id as string);
    const brief = await engram.artifacts.render("support_brief", { customer: "cust-1", question: "refund?" });
    expect(brief.content).toContain("pro plan");
    const context = await engram.context({ entity: "cust-1", task: "refund", budget: 2000 });
    expect(context.input_record_ids).toContain(ticket?.id);

    const erased = await engram.erase({ entity: "cust-1" });
    expect(erased.deleted).toBe(2);
    expect(await engram.timeline({ entity: "cust-1" }).toArray()).toEqual([]);
  });

  it("throws typed errors carrying the problem's status, code, detail and extension members", async () => {
    const refused = await engram.search({ mode: "fuzzy" } as never).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EngramError);
    expect(refused).toMatchObject({ status: 422, code: "request_schema" });
    expect((refused as EngramError).problem.errors?.length).toBeGreaterThan(0);

    const missing = await engram.records.get("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
    expect((missing as EngramError).detail).toBeTruthy();

    const stranger = new Engram({ url: server.url, key: `egk_${"A".repeat(43)}` });
    await expect(stranger.workspace()).rejects.toMatchObject({ status: 401, code: "unauthorized" });

    // The fake model provider cannot answer: 502 answer_model (docs/api.md "`POST /answer`").
    await expect(engram.answer({ question: "What plan is cust-1 on?" })).rejects.toMatchObject({
      status: 502,
      code: "answer_model",
    });
  });

  it("manages keys with the workspace's admin key: create a read-only key, find it by prefix, revoke it", async () => {
    const created = await engram.keys.create({ name: "desk-agent", scope: "read_only", expires_in: "1d" });
    expect(created.scope).toBe("read_only");
    const reader = new Engram({ url: server.url, key: created.api_key });
    expect((await reader.workspace()).key.scope).toBe("read_only");
    await expect(reader.keys.list()).rejects.toMatchObject({ status: 403, code: "key_scope" });
    const listed = (await engram.keys.list()).find((key) => key.prefix === created.api_key.slice(0, 12));
    expect(listed?.id).toBe(created.id);
    await engram.keys.revoke(created.id);
    await expect(reader.workspace()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("refuses a promotion of a run it does not know, as a typed error", async () => {
    const unknownRun = {
      entity: "cust-1",
      source_run_id: "00000000-0000-4000-8000-000000000000",
      artifact: "support_brief",
    };
    await expect(engram.promote(unknownRun)).rejects.toBeInstanceOf(EngramError);
  });

  it("retries through a proxy whose every first attempt is a 503, with the same results as direct", async () => {
    // Each request is refused once with 503 and Retry-After: 0, then forwarded to the server.
    const refused = new Set<string>();
    const proxy = createServer((req, res) => {
      const body: Buffer[] = [];
      req.on("data", (chunk: Buffer) => body.push(chunk));
      req.on("end", () => {
        const signature = `${req.method} ${req.url} ${Buffer.concat(body).toString()}`;
        if (!refused.has(signature)) {
          refused.add(signature);
          res.writeHead(503, { "content-type": "application/problem+json", "retry-after": "0" });
          res.end(
            JSON.stringify({
              type: "about:blank",
              title: "Busy",
              status: 503,
              code: "database_busy",
              detail: "busy",
            }),
          );
          return;
        }
        const target = new URL(req.url ?? "/", server.url);
        const upstream = forward(target, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.end(Buffer.concat(body));
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const viaProxy = new Engram({
        url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        key: server.key,
      });
      const rows = [1, 2, 3].map((i) => ({
        collection: "customer_events",
        entity: "proxied",
        type: "note",
        text: `proxied ${i}`,
        dedupe_key: `proxied-${i}`,
      }));
      const written = await viaProxy.records.write(rows);
      expect(written.inserted.map((row) => row.index)).toEqual([0, 1, 2]);
      const timeline = await viaProxy
        .timeline({ entity: "proxied", collections: ["customer_events"], limit: 2 })
        .toArray();
      // Ids, not whole rows: enrichment may turn a row ready between the two reads.
      const direct = await engram.timeline({ entity: "proxied", collections: ["customer_events"] }).toArray();
      expect(timeline.map((row) => row.id)).toEqual(direct.map((row) => row.id));
      expect(timeline.map((row) => row.text)).toEqual(["proxied 3", "proxied 2", "proxied 1"]);
      // GET /workspace, the write, and the timeline's two pages: each refused once.
      expect(refused.size).toBe(4);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it("cancels a request with an AbortSignal", async () => {
    const controller = new AbortController();
    controller.abort(new Error("caller gave up"));
    await expect(engram.workspace({ signal: controller.signal })).rejects.toThrow("caller gave up");
    const pages = engram.timeline({ entity: "nobody" }, { signal: AbortSignal.abort() });
    await expect(pages.toArray()).rejects.toThrow();
  });
});
