// The memories page in a real browser: the workspace's records across entities newest first (as
// GET /records lists them), each linking to its entity and record; the collection, type and status
// filters kept in the URL (so a reload keeps them); paging by the opaque cursor; and an empty
// result said in words.
import { expect, it } from "vitest";
import { consoleSuite } from "./harness.js";

consoleSuite("console: memories", {}, (ctx) => {
  const rows = () => ctx.page.locator("table[aria-label='Memories'] tbody tr");
  const recordIds = () =>
    ctx.page
      .locator("table[aria-label='Memories'] tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) =>
          new URL((tr.querySelector("td:last-child a") as HTMLAnchorElement).href).searchParams.get("id"),
        ),
      );

  it("lists the workspace's records newest first, as GET /records does, each linking to its entity", async () => {
    const { page, server } = ctx;
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Memories" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/memories`);
    const listed = (await server.api("GET", "/records?limit=50")).body;
    await expect.poll(() => recordIds()).toEqual(listed.records.map((r: { id: string }) => r.id));
    const first = listed.records[0] as { entity: string };
    await rows().first().getByRole("link", { name: first.entity, exact: true }).click();
    await expect
      .poll(() => page.url())
      .toContain(`/console/entity?entity=${encodeURIComponent(first.entity)}`);
  });

  it("filters by collection, type and status; the filters survive a reload", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/memories`);
    await page.getByLabel("Collection").selectOption("customer_facts");
    await page.getByLabel("Type").fill("fact");
    await page.getByLabel("Type").press("Enter");
    await expect
      .poll(() => page.url())
      .toBe(`${server.url}/console/memories?collection=customer_facts&type=fact`);
    const facts = (await server.api("GET", "/records?collection=customer_facts&type=fact")).body.records;
    expect(facts.length).toBeGreaterThan(0);
    await expect.poll(() => recordIds()).toEqual(facts.map((r: { id: string }) => r.id));
    await page.reload();
    await expect.poll(() => page.getByLabel("Collection").inputValue()).toBe("customer_facts");
    await expect.poll(() => recordIds()).toEqual(facts.map((r: { id: string }) => r.id));

    // The review derivation's output waits for promotion as drafts.
    await page.getByLabel("Status").selectOption("draft");
    await page.getByLabel("Type").fill("review");
    await page.getByLabel("Type").press("Enter");
    const drafts = (await server.api("GET", "/records?collection=customer_facts&type=review&status=draft"))
      .body.records;
    expect(drafts.length).toBeGreaterThan(0);
    await expect.poll(() => recordIds()).toEqual(drafts.map((r: { id: string }) => r.id));
    await page.getByLabel("Type").fill("no-such-type");
    await page.getByLabel("Type").press("Enter");
    await expect.poll(() => page.getByText("No record matches these filters.").count()).toBe(1);
  });

  it("pages by the cursor, a deep link per page, and back to the first page", async () => {
    const { page, server } = ctx;
    const records = Array.from({ length: 55 }, (_, i) => ({
      collection: "edges",
      entity: `mem-${i}`,
      type: "edge",
      text: `edge ${i}`,
      content: { subject: "a", object: "b", predicate: "links" },
    }));
    expect((await server.api("POST", "/records", { records })).status).toBe(200);
    await page.goto(`${server.url}/console/memories?collection=edges`);
    await expect.poll(() => rows().count()).toBe(50);
    const firstPage = (await server.api("GET", "/records?collection=edges&limit=50")).body;
    await page.getByRole("button", { name: "Next page" }).click();
    await expect
      .poll(() => page.url())
      .toBe(
        `${server.url}/console/memories?collection=edges&before=${encodeURIComponent(firstPage.next_before)}`,
      );
    const secondPage = (
      await server.api(
        "GET",
        `/records?collection=edges&limit=50&before=${encodeURIComponent(firstPage.next_before)}`,
      )
    ).body;
    await expect.poll(() => recordIds()).toEqual(secondPage.records.map((r: { id: string }) => r.id));
    await page.getByRole("button", { name: "First page" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/memories?collection=edges`);
    await expect.poll(() => rows().count()).toBe(50);
  });
});
