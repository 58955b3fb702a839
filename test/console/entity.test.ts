// The entity and record pages in a real browser, on the seeded workspace: the document (beliefs,
// derived facts, freshness), the timeline (paged, status and system toggles), a keyed fact's
// history, a derived record's provenance and a source record's cited-by, and the drafts of a
// reviewed derivation promoted — or refused as promotion_stale, shown plainly.
import { expect, it } from "vitest";
import { type ConsoleContext, consoleSuite } from "./harness.js";
import { waitForJob } from "./seed.js";

/** 30 more rows for acme that need no enrichment, so its timeline has a second page (25 a page). */
async function moreAcmeRows({ server }: ConsoleContext): Promise<void> {
  const records = Array.from({ length: 30 }, (_, i) => ({
    collection: "edges",
    entity: "acme",
    type: "edge",
    text: `acme link ${i}`,
    content: { subject: "acme", object: `topic-${i}`, predicate: "mentions" },
  }));
  expect((await server.api("POST", "/records", { records })).status).toBe(200);
}

consoleSuite("console: entity and record pages", { setup: moreAcmeRows }, (ctx) => {
  const recordLink = (id: string) => ctx.page.locator(`a[href="/console/record?id=${id}"]`);

  it("shows the entity's document: beliefs per collection and key, derived facts, freshness", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entity?entity=acme`);
    const doc = (await server.api("GET", "/document?entity=acme")).body;
    const beliefs = page.getByRole("table", { name: "Beliefs in customer_facts" });
    await expect.poll(() => beliefs.locator("tbody tr").count()).toBe(doc.beliefs.length);
    const plan = beliefs
      .locator("tbody tr")
      .filter({ has: page.getByRole("link", { name: "plan", exact: true }) });
    expect(await plan.textContent()).toContain("Enterprise plan with SSO add-on");
    const situation = doc.beliefs.find((b: { key: string }) => b.key === "situation");
    const derivedRow = beliefs.locator("tbody tr").filter({ has: recordLink(situation.id) });
    expect(await derivedRow.locator(".badge.derived").count()).toBe(1);
    for (const cited of situation.citations.slice(0, 6))
      expect(await derivedRow.locator(`a[href*="${cited}"]`).count()).toBe(1);
    const freshness = page.getByRole("table", { name: "Freshness" });
    await expect.poll(() => freshness.textContent()).toContain("customer_profile");
    expect(await page.getByText("No key is retracted.").count()).toBe(1);
    expect(await page.getByRole("link", { name: "Erase this entity" }).getAttribute("href")).toBe(
      "/console/erase?entity=acme",
    );
  });

  it("pages the timeline by next_before_seq, with status and system rows toggles in the URL", async () => {
    const { page, server } = ctx;
    await page.getByRole("link", { name: "Timeline", exact: true }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/entity?entity=acme&tab=timeline`);
    const all = (await server.api("GET", "/timeline?entity=acme&limit=100")).body.records as {
      id: string;
      seq: number;
    }[];
    expect(all.length).toBeGreaterThan(25);
    const rows = page.getByRole("table", { name: "Timeline records" }).locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(25);
    expect(await rows.first().locator("td").first().textContent()).toBe(String(all[0]?.seq));
    await page.getByRole("button", { name: "Next page" }).click();
    await expect.poll(() => page.url()).toContain(`before=${all[24]?.seq}`);
    await expect.poll(() => rows.count()).toBe(all.length - 25);
    expect(await recordLink(all[25]?.id as string).count()).toBe(1);
    await page.reload();
    await expect.poll(() => rows.count()).toBe(all.length - 25);
    await page.getByRole("button", { name: "First page" }).click();
    await expect.poll(() => rows.count()).toBe(25);

    await page.getByLabel("Include system rows").check();
    await expect.poll(() => page.url()).toContain("system=true");
    // globex's drafts appear only with draft rows chosen.
    await page.goto(`${server.url}/console/entity?entity=globex&tab=timeline`);
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    expect(await rows.locator(".badge.draft").count()).toBe(0);
    await page.getByLabel("Status rows").selectOption("all");
    await expect.poll(() => page.url()).toContain("status=all");
    await expect.poll(() => rows.locator(".badge.draft").count()).toBe(2);
    await page.getByLabel("Status rows").selectOption("draft");
    await expect.poll(() => rows.count()).toBe(2);
  });

  it("shows a keyed fact's history, picked from the document", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entity?entity=acme`);
    await page.getByRole("link", { name: "plan", exact: true }).click();
    await expect
      .poll(() => page.url())
      .toBe(`${server.url}/console/entity?entity=acme&tab=history&collection=customer_facts&key=plan`);
    const versions = page.getByRole("table", { name: "Versions" }).locator("tbody tr");
    await expect.poll(() => versions.count()).toBe(2);
    expect(await versions.first().textContent()).toContain("enterprise+sso");
    expect(await versions.first().locator(".badge", { hasText: "current" }).count()).toBe(1);
    expect(await page.getByLabel("Keyed fact").inputValue()).toContain("plan");
    // Another key from the picker.
    await page.getByLabel("Keyed fact").selectOption({ label: "customer_facts · situation" });
    await page.getByRole("button", { name: "Show history" }).click();
    await expect.poll(() => page.url()).toContain("key=situation");
    await expect.poll(() => versions.count()).toBe(1);
  });

  it("shows a derived record's provenance as links, and the source record's cited-by", async () => {
    const { page, server, seeded } = ctx;
    const doc = (await server.api("GET", "/document?entity=acme")).body;
    const situation = doc.beliefs.find((b: { key: string }) => b.key === "situation");
    await page.goto(`${server.url}/console/entity?entity=acme`);
    await recordLink(situation.id).first().click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/record?id=${situation.id}`);
    const record = (await server.api("GET", `/records/${situation.id}`)).body;
    expect(record.run_id).toBe(seeded.profileRunId);
    const parents = page.getByRole("table", { name: "Derives from" });
    await expect
      .poll(() => parents.locator("tbody tr").count())
      .toBe(Math.min(20, record.derived_from.length));
    const source = seeded.eventIds[0] as string;
    expect(record.derived_from).toContain(source);
    expect(await parents.textContent()).toContain("The invoice export to CSV fails with a timeout");
    expect(await page.locator(`a[href="/console/run?id=${seeded.profileRunId}"]`).count()).toBeGreaterThan(0);
    expect(await page.getByRole("link", { name: "acme", exact: true }).first().getAttribute("href")).toBe(
      "/console/entity?entity=acme",
    );

    await parents.locator(`a[href="/console/record?id=${source}"]`).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/record?id=${source}`);
    await expect.poll(() => page.getByText("nothing: original evidence").count()).toBe(1);
    const citedBy = page.getByRole("table", { name: "Cited by" });
    await expect.poll(() => citedBy.locator(`a[href="/console/record?id=${situation.id}"]`).count()).toBe(1);
    const apiCitedBy = (await server.api("GET", `/records/${source}/cited-by`)).body.records;
    expect(await citedBy.locator("tbody tr").count()).toBe(apiCitedBy.length);
  });

  it("draws a derived record's provenance: what it derives from and what derives from its sources", async () => {
    const { page, server, seeded } = ctx;
    const doc = (await server.api("GET", "/document?entity=acme")).body;
    const situation = doc.beliefs.find((b: { key: string }) => b.key === "situation");
    const record = (await server.api("GET", `/records/${situation.id}`)).body;
    await page.goto(`${server.url}/console/record?id=${situation.id}`);
    const picture = page.getByRole("region", { name: "Provenance picture" });
    const nodes = picture.getByTestId("graph-node");
    // The record and each record it derives from (the seed's parents), at least.
    await expect
      .poll(() => nodes.count())
      .toBeGreaterThanOrEqual(1 + Math.min(8, record.derived_from.length));
    const source = seeded.eventIds[0] as string;
    const sourceNode = picture.locator(`a[href="/console/record?id=${source}"]`);
    expect(await sourceNode.count()).toBe(1);
    await sourceNode.click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/record?id=${source}`);
    // From the source, the picture reaches down to what derives from it.
    await expect
      .poll(() =>
        page
          .getByRole("region", { name: "Provenance picture" })
          .locator(`a[href="/console/record?id=${situation.id}"]`)
          .count(),
      )
      .toBe(1);
  });

  it("promotes the drafts of a reviewed derivation behind a confirmation naming them", async () => {
    const { page, server, seeded } = ctx;
    await page.goto(`${server.url}/console/entity?entity=globex&tab=drafts`);
    const section = page.getByRole("region", { name: "Drafts of account_review" });
    await expect
      .poll(() => section.locator(`a[href="/console/run?id=${seeded.reviewRunId}"]`).count())
      .toBe(1);
    const drafts = (await server.api("GET", "/document?entity=globex&status=draft")).body.beliefs;
    expect(drafts.length).toBe(2);
    for (const draft of drafts) expect(await section.getByText(draft.text).count()).toBeGreaterThan(0);

    await section.getByRole("button", { name: /Promote via account_brief/ }).click();
    const dialog = page.getByRole("dialog", { name: "Promote drafts of globex?" });
    await expect.poll(() => dialog.textContent()).toContain("situation, open_issues");
    expect(await dialog.textContent()).toContain(seeded.reviewRunId);
    await dialog.getByRole("button", { name: "Promote" }).click();
    await expect.poll(() => section.getByRole("status").textContent()).toMatch(/^Promoted: /);
    const active = (await server.api("GET", "/document?entity=globex")).body.beliefs;
    const promoted = active.find((b: { key: string }) => b.key === "situation");
    expect(promoted.type).toBe("review");
    expect(await section.locator(`a[href="/console/record?id=${promoted.id}"]`).count()).toBeGreaterThan(0);
    await expect.poll(() => section.locator(".badge", { hasText: "promoted" }).count()).toBe(1);
  });

  it("shows 409 promotion_stale plainly when a key changed since the run read it", async () => {
    const { page, server } = ctx;
    const queued = await server.api("POST", "/processors/account_review/run", { entity: "initech" });
    expect(queued.status).toBe(202);
    const runId = (await waitForJob(server, queued.body.job_id)).successful_run_id;
    const written = await server.api("POST", "/records", {
      records: [
        {
          collection: "customer_facts",
          entity: "initech",
          type: "fact",
          key: "situation",
          text: "Set by hand",
        },
      ],
    });
    expect(written.status).toBe(200);

    await page.goto(`${server.url}/console/entity?entity=initech&tab=drafts`);
    const section = page.getByRole("region", { name: "Drafts of account_review" });
    await expect.poll(() => section.locator(`a[href="/console/run?id=${runId}"]`).count()).toBe(1);
    await section.getByRole("button", { name: /Promote via account_brief/ }).click();
    await page
      .getByRole("dialog", { name: "Promote drafts of initech?" })
      .getByRole("button", { name: "Promote" })
      .click();
    const alert = section.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain("promotion_stale");
    expect(await alert.textContent()).toContain("situation changed since run");
    const after = (await server.api("GET", "/document?entity=initech")).body.beliefs;
    expect(after.find((b: { key: string }) => b.key === "situation").text).toBe("Set by hand");
  });
});
