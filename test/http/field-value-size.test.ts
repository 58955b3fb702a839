// A string too long for a btree entry at a path a field index covers is the writer's input, not a
// server failure: 422 with nothing written, in the declaring workspace and in any other that
// writes the same collection version (field indexes are shared, src/search/field-indexes.ts).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";
import { exampleRequest } from "../support/example-catalog.js";

describe("a field value too long to index", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const longTopic = () => randomBytes(6000).toString("base64");
  const writeLong = (headers: { authorization: string }, entity: string, extra: object[] = []) =>
    t.app.inject({
      method: "POST",
      url: "/records",
      headers,
      payload: {
        records: [
          ...extra,
          { collection: "customer_events", entity, type: "t", text: "x", content: { topic: longTopic() } },
        ],
      },
    });

  it("is a 422 naming the rule, and writes nothing", async () => {
    const ws = await t.workspace("long-values");
    await t.publishExample(ws.headers);
    const res = await writeLong(ws.headers, "a", [
      { collection: "customer_events", entity: "a", type: "t", text: "short one" },
    ]);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: "request_schema", errors: [{ path: "records" }] });
    const timeline = await t.app.inject({ url: "/timeline?entity=a", headers: ws.headers });
    expect(timeline.json().records).toHaveLength(0);
  });

  it("is a 422 too in a workspace whose catalog shares the collection version", async () => {
    const declaring = await t.workspace("declares-topic");
    await t.publishExample(declaring.headers);
    // The other workspace's customer_events@1 declares no topic field: the index is the first's.
    const other = await t.workspace("shares-version");
    const request = await exampleRequest();
    const collections = request.files["collections/support.yaml"] as string;
    request.files["collections/support.yaml"] = collections.replace(
      "      topic: { path: topic, type: string, filter: true, return: true, project: true }\n",
      "",
    );
    expect(request.files["collections/support.yaml"]).not.toBe(collections);
    const published = await t.publish(other.headers, request);
    expect(published.statusCode, published.body).toBe(200);
    const res = await writeLong(other.headers, "b");
    expect(res.statusCode, res.body).toBe(422);
  });
});
