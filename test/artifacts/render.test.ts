import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ArtifactHarness, artifactHarness } from "../support/artifact-catalog.js";

describe("POST /artifacts/{name}/render", () => {
  let h: ArtifactHarness;
  let ids: { plan: string; tier: string; low: string; high: string };
  const render = (name: string, body: object) => h.post(`/artifacts/${name}/render`, body);

  beforeAll(async () => {
    h = await artifactHarness("artifact-render");
    const [plan, tier, low, high] = await h.write([
      { collection: "facts", entity: "acme", type: "fact", key: "plan", text: "Pro plan since 2024" },
      { collection: "facts", entity: "acme", type: "fact", key: "tier", text: "Gold <vip> & friends" },
      {
        collection: "notes",
        entity: "acme",
        type: "ticket",
        text: "Asked about invoices",
        content: { priority: 1 },
        occurred_at: "2026-01-02T03:04:05.678Z",
      },
      {
        collection: "notes",
        entity: "acme",
        type: "ticket",
        text: "Outage report",
        content: { priority: 5 },
        occurred_at: "2026-01-03T00:00:00Z",
      },
      {
        collection: "notes",
        entity: "other",
        type: "ticket",
        text: "Not about acme",
        content: { priority: 9 },
      },
    ]);
    ids = { plan, tier, low, high } as typeof ids;
  });
  afterAll(() => h.close());

  it("fills the template with the document and view blocks, rows escaped, in a fixed order", async () => {
    const res = await render("brief", { customer: "acme", question: "billing <now>" });
    expect(res.statusCode, res.body).toBe(200);
    const { content } = res.json();
    const lines = content.split("\n");
    expect(lines[0]).toBe("Brief on acme about billing &lt;now&gt;");
    expect(lines[1]).toBe("Facts:");
    expect(lines[2]).toMatch(
      new RegExp(
        `^\\[${ids.plan}\\] \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ facts/fact key=plan \\| Pro plan since 2024$`,
      ),
    );
    expect(lines[3]).toContain(`[${ids.tier}]`);
    expect(lines[3]).toContain("| Gold &lt;vip&gt; &amp; friends");
    expect(lines[4]).toBe("Notes:");
    // The view's order (priority desc), its own timestamps in UTC whole seconds.
    expect(lines[5]).toBe(`[${ids.high}] 2026-01-03T00:00:00Z notes/ticket | Outage report`);
    expect(lines[6]).toBe(`[${ids.low}] 2026-01-02T03:04:05Z notes/ticket | Asked about invoices`);
    expect(content).not.toContain("Not about acme");
  });

  it("reports a manifest: artifact, package and catalog hashes, records in render order, blocks", async () => {
    const res = await render("brief", { customer: "acme" });
    const { content, manifest } = res.json();
    const listed = (await h.get("/artifacts"))
      .json()
      .artifacts.find((a: { name: string }) => a.name === "brief");
    const catalog = (await h.get("/catalog")).json();
    expect(manifest.artifact).toEqual({ name: "brief", version: 1, definition_hash: listed.hash });
    expect(manifest.package).toEqual({
      name: "demo-pack",
      version: "1.0.0",
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(manifest.catalog_hash).toBe(catalog.catalog_hash);
    expect(manifest.record_ids).toEqual([ids.plan, ids.tier, ids.high, ids.low]);
    expect(manifest.blocks.facts).toEqual({
      record_ids: [ids.plan, ids.tier],
      tokens: expect.any(Number),
      truncated: false,
    });
    expect(manifest.blocks.history.record_ids).toEqual([ids.high, ids.low]);
    expect(manifest.truncated).toBe(false);
    expect(manifest.tokens).toBeGreaterThan(manifest.blocks.facts.tokens + manifest.blocks.history.tokens);
    expect(content).toContain("about anything"); // the default of question
  });

  it("is byte-for-byte deterministic, and a changed fact changes exactly its line", async () => {
    const first = (await render("brief", { customer: "acme" })).json().content;
    const second = (await render("brief", { customer: "acme" })).json().content;
    expect(second).toBe(first);
    const [newTier] = await h.write([
      { collection: "facts", entity: "acme", type: "fact", key: "tier", text: "Platinum now" },
    ]);
    const third = (await render("brief", { customer: "acme" })).json().content;
    const before = first.split("\n");
    const after = third.split("\n");
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line: string, i: number) => (line === before[i] ? [] : [i]));
    expect(changed).toEqual([3]);
    expect(after[3]).toContain(`[${newTier}]`);
    expect(after[3]).toContain("| Platinum now");
  });

  it("bounds a block by its max_tokens with a truncation row, and lists only what it rendered", async () => {
    await h.write(
      Array.from({ length: 12 }, (_, i) => ({
        collection: "facts",
        entity: "big",
        type: "fact",
        key: `k${String(i).padStart(2, "0")}`,
        text: `fact number ${i} with several words of text to take tokens`,
      })),
    );
    const res = await render("tiny", { customer: "big" });
    expect(res.statusCode, res.body).toBe(200);
    const { content, manifest } = res.json();
    expect(manifest.truncated).toBe(true);
    expect(manifest.blocks.facts.truncated).toBe(true);
    expect(manifest.blocks.facts.tokens).toBeLessThanOrEqual(150);
    const rendered = content
      .split("\n")
      .filter((line: string) => line.startsWith("[") && !line.startsWith("[truncated"));
    expect(rendered.length).toBeGreaterThan(0);
    expect(manifest.blocks.facts.record_ids).toHaveLength(rendered.length);
    expect(content).toMatch(new RegExp(`\\[truncated: ${12 - rendered.length} more records\\]$`));
  });

  it("refuses bad parameters with 422 request_schema naming each", async () => {
    const res = await render("brief", { question: 7, extra: true, notes: 0 });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe("request_schema");
    expect(
      res
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(["customer", "extra", "notes", "question"]);
  });

  it("answers 404 artifact_not_found for an unknown or inactive artifact", async () => {
    for (const name of ["nope", "dormant"]) {
      const res = await render(name, {});
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe("artifact_not_found");
    }
  });

  it("renders an entity without records as empty blocks", async () => {
    const res = await render("brief", { customer: "nobody" });
    expect(res.statusCode).toBe(200);
    expect(res.json().manifest.record_ids).toEqual([]);
    expect(res.json().content).toBe("Brief on nobody about anything\nFacts:\n\nNotes:\n\n");
  });
});
