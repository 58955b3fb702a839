import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";

const EVENTS_PROPS = "        tags: { type: array, items: { type: string } }\n";

describe("catalog compatibility against stored records", () => {
  let t: TestApp;
  let headers: { authorization: string };
  let base: { package: string; files: Record<string, string> };
  let version = 1;
  let eventId: string;

  /** The example package with customer_events edited and a fresh package version. */
  function variant(edit: (collections: string) => string) {
    version++;
    const files = { ...base.files };
    files["collections/support.yaml"] = edit(files["collections/support.yaml"] as string);
    files["packages/support.yaml"] = (files["packages/support.yaml"] as string).replace(
      /version: \d+\.\d+\.\d+/,
      `version: 1.${version}.0`,
    );
    return { package: `support@1.${version}.0`, files };
  }
  const publish = (body: object, query = "") =>
    t.app.inject({ method: "POST", url: `/catalog${query}`, headers, payload: body });
  const installed = async () => (await t.app.inject({ url: "/catalog", headers })).json().package;
  const recordHash = async () =>
    (await t.app.inject({ url: `/records/${eventId}`, headers })).json().collection_hash;

  beforeAll(async () => {
    t = await createTestApp();
    ({ headers } = await t.workspace("compat"));
    base = await exampleRequest();
    expect((await publish(base)).statusCode).toBe(200);
    const res = await t.app.inject({
      method: "POST",
      url: "/records",
      headers,
      payload: {
        records: [
          {
            collection: "customer_events",
            entity: "c1",
            type: "ticket",
            text: "a",
            content: { channel: "email", priority: 2 },
          },
          {
            collection: "customer_events",
            entity: "c1",
            type: "ticket",
            text: "b",
            content: { channel: "chat" },
          },
        ],
      },
    });
    eventId = res.json().inserted[0].id;
  });
  afterAll(() => t.close());

  it("publishes a binding-only change invisibly: no record moves", async () => {
    const before = await recordHash();
    const res = await publish(variant((y) => y.replace("    answerable: true\n", "    answerable: false\n")));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rewritten_records).toBe(0);
    expect(await recordHash()).toBe(before);
  });

  it("publishes a new optional property in place and moves the stored contracts forward", async () => {
    const before = await recordHash();
    const body = variant((y) =>
      y.replace(EVENTS_PROPS, `${EVENTS_PROPS}        sentiment: { type: string }\n`),
    );
    const dry = await publish(body, "?dry_run=true");
    expect(dry.json()).toMatchObject({ verdict: "additive", publishable: true, blockers: [] });
    const res = await publish(body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rewritten_records).toBe(2);
    expect(await recordHash()).not.toBe(before);
    const report = (await t.app.inject({ url: "/catalog/compatibility", headers })).json();
    expect(report).toMatchObject({ verdict: "invisible", publishable: true, blockers: [] });
  });

  it("refuses a declared field changing path with 409 catalog_incompatible and keeps the previous catalog", async () => {
    const previous = await installed();
    const res = await publish(
      variant((y) => y.replace("topic: { path: topic, type: string", "topic: { path: subject, type: string")),
    );
    expect(res.statusCode).toBe(409);
    const body = res.json();
    expect(body.code).toBe("catalog_incompatible");
    expect(body.compatibility).toMatchObject({ verdict: "reinterpreting", publishable: false });
    expect(body.compatibility.blockers[0]).toMatchObject({
      records: { collection: "customer_events", version: 1, count: 2 },
    });
    expect(body.compatibility.blockers[0].action).toContain("customer_events@2");
    expect(await installed()).toBe(previous);
  });

  it("refuses a schema the stored records do not satisfy", async () => {
    const res = await publish(
      variant((y) => y.replace(EVENTS_PROPS, `${EVENTS_PROPS}      required: [priority]\n`)),
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().compatibility.blockers[0].reason).toContain("schema");
  });

  it("refuses a mode change", async () => {
    const res = await publish(
      variant((y) =>
        y.replace(
          "  - name: customer_events\n    version: 1\n    active: true\n    mode: event",
          "  - name: customer_events\n    version: 1\n    active: true\n    mode: mixed",
        ),
      ),
    );
    expect(res.statusCode).toBe(409);
  });

  it("dry_run reports a reinterpreting change as not publishable with 200", async () => {
    const res = await publish(
      variant((y) => y.replace("topic: { path: topic, type: string", "topic: { path: subject, type: string")),
      "?dry_run=true",
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ verdict: "reinterpreting", publishable: false });
  });

  it("refuses an additive change it cannot verify within ADDITIVE_VERIFY_MAX_ROWS", async () => {
    const strict = await createTestApp({ env: { ADDITIVE_VERIFY_MAX_ROWS: "1" }, testDb: t.testDb });
    try {
      const res = await strict.app.inject({
        method: "POST",
        url: "/catalog",
        headers,
        payload: variant((y) => y.replace(EVENTS_PROPS, `${EVENTS_PROPS}        mood: { type: string }\n`)),
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().compatibility.blockers[0].reason).toContain("ADDITIVE_VERIFY_MAX_ROWS");
    } finally {
      await strict.app.close();
    }
  });
});
