import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ArtifactHarness, artifactHarness } from "../support/artifact-catalog.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("artifact snapshots", () => {
  let h: ArtifactHarness;
  let plan: string;
  let note: string;

  beforeAll(async () => {
    h = await artifactHarness("artifact-snapshots");
    [plan, note] = (await h.write([
      { collection: "facts", entity: "acme", type: "fact", key: "plan", text: "Pro plan" },
      {
        collection: "notes",
        entity: "acme",
        type: "ticket",
        text: "Invoice question",
        content: { priority: 2 },
      },
    ])) as [string, string];
  });
  afterAll(() => h.close());

  it("persists the render as a keyed record citing the records used, and reads it back", async () => {
    const made = await h.post("/artifacts/brief/snapshot", { customer: "acme", notes: 5 });
    expect(made.statusCode, made.body).toBe(200);
    const snapshot = made.json();
    const rendered = (await h.post("/artifacts/brief/render", { customer: "acme", notes: 5 })).json();
    expect(snapshot.content).toBe(rendered.content);
    expect(snapshot.manifest.record_ids).toEqual([plan, note]);

    const record = (await h.get(`/records/${snapshot.record_id}`)).json();
    // RFC 8785: keys sorted, no white space; the default of question applied.
    const parameters = '{"customer":"acme","notes":5,"question":"anything"}';
    expect(record).toMatchObject({
      collection: "snapshots",
      entity: "artifact:brief",
      type: "brief_snapshot",
      key: `brief@1:${sha256(parameters)}`,
      text: snapshot.content,
      derived_from: [plan, note],
      citations: [plan, note],
      depth: 1,
    });

    // Query parameters are read by their declared types (notes is an integer).
    const current = await h.get("/artifacts/brief?customer=acme&notes=5");
    expect(current.statusCode, current.body).toBe(200);
    expect(current.json()).toEqual(snapshot);
  });

  it("a later snapshot supersedes the earlier one for the same parameters", async () => {
    const first = (await h.post("/artifacts/brief/snapshot", { customer: "acme" })).json();
    await h.write([
      { collection: "facts", entity: "acme", type: "fact", key: "plan", text: "Enterprise plan" },
    ]);
    const second = (await h.post("/artifacts/brief/snapshot", { customer: "acme" })).json();
    expect(second.record_id).not.toBe(first.record_id);
    expect(second.content).toContain("Enterprise plan");
    const current = (await h.get("/artifacts/brief?customer=acme")).json();
    expect(current.snapshot_id).toBe(second.snapshot_id);
    expect(current.content).toBe(second.content);
  });

  it("answers 404 snapshot_not_found for parameters never snapshotted", async () => {
    const res = await h.get("/artifacts/brief?customer=someone-else");
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe("snapshot_not_found");
  });

  it("refuses bad query parameters with 422 request_schema", async () => {
    const res = await h.get("/artifacts/brief?customer=acme&notes=many&bogus=1");
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(["bogus", "notes"]);
  });

  it("answers 422 artifact_snapshot on an artifact without a snapshot target, writing nothing", async () => {
    const before = (await h.get("/timeline?limit=100&include_system=true")).json().records.length;
    for (const res of [
      await h.post("/artifacts/tiny/snapshot", { customer: "acme" }),
      await h.get("/artifacts/tiny?customer=acme"),
    ]) {
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe("artifact_snapshot");
    }
    expect((await h.get("/timeline?limit=100&include_system=true")).json().records.length).toBe(before);
  });

  it("answers 404 artifact_not_found on an unknown artifact", async () => {
    expect((await h.get("/artifacts/nope?customer=acme")).json().code).toBe("artifact_not_found");
    expect((await h.post("/artifacts/nope/snapshot", {})).statusCode).toBe(404);
  });
});
