// The entities page in a real browser: the seeded entities with their counts, the prefix filter
// (kept in the URL, so it survives a reload), paging by the next_after cursor; and sign-in refusing
// a wrong key.
import { expect, it } from "vitest";
import { type ConsoleContext, consoleSuite, signIn } from "./harness.js";
import { ENTITIES } from "./seed.js";

/**
 * 55 more entities under one prefix, so that the list needs a second page (50 a page). Edges need
 * no enrichment, so they are listed at once.
 */
async function moreEntities({ server }: ConsoleContext): Promise<void> {
  const records = Array.from({ length: 55 }, (_, i) => ({
    collection: "edges",
    entity: `zz-${String(i).padStart(3, "0")}`,
    type: "edge",
    text: `edge ${i}`,
    content: { subject: "a", object: "b", predicate: "links" },
  }));
  const written = await server.api("POST", "/records", { records });
  expect(written.status).toBe(200);
}

consoleSuite("console: entities", { signIn: false, setup: moreEntities }, (ctx) => {
  const rows = () => ctx.page.getByRole("table", { name: "Entities" }).locator("tbody tr");
  const names = () => ctx.page.locator("table[aria-label='Entities'] tbody td.entity-name").allTextContents();

  it("refuses a wrong key at sign-in, showing the API's detail", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entities`);
    await page.getByLabel("Workspace key").fill("egk_wrong-key-for-the-entities-test");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/unauthorized|not valid/i);
    expect(await page.getByRole("table", { name: "Entities" }).count()).toBe(0);
  });

  it("lists the seeded entities with their record counts and last activity, each linking to its page", async () => {
    const { page, server } = ctx;
    await signIn(page, server);
    await page.getByRole("link", { name: "Entities", exact: true }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/entities`);
    const listed = (await server.api("GET", "/entities?limit=50")).body.entities as {
      entity: string;
      records: number;
    }[];
    await expect.poll(() => rows().count()).toBe(50);
    const shown = await names();
    for (const entity of ENTITIES) expect(shown).toContain(entity);
    const acme = listed.find((e) => e.entity === "acme");
    expect(acme?.records).toBeGreaterThan(4);
    const acmeRow = rows().filter({ has: page.getByRole("link", { name: "acme", exact: true }) });
    expect(await acmeRow.getByTestId("entity-records").textContent()).toBe(String(acme?.records));
    expect(await acmeRow.locator("time").textContent()).toMatch(/ago$/);

    await acmeRow.getByRole("link", { name: "acme", exact: true }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/entity?entity=acme`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("acme");
    await page.goBack();
    await expect.poll(() => rows().count()).toBe(50);
  });

  it("filters by prefix as the operator types, and the filter survives a reload", async () => {
    const { page, server } = ctx;
    const filter = page.getByLabel("Filter by name prefix");
    await filter.fill("gl");
    await expect.poll(() => page.url()).toBe(`${server.url}/console/entities?prefix=gl`);
    await expect.poll(() => names()).toEqual(["globex"]);
    await page.reload();
    await expect.poll(() => page.getByLabel("Filter by name prefix").inputValue()).toBe("gl");
    await expect.poll(() => names()).toEqual(["globex"]);

    await page.getByLabel("Filter by name prefix").fill("nobody-");
    await expect.poll(() => page.getByText("No entity starts with “nobody-”.").count()).toBe(1);
  });

  it("pages by the next_after cursor (a deep link per page) and back to the first page", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entities?prefix=zz-`);
    await expect.poll(() => rows().count()).toBe(50);
    expect((await names())[0]).toBe("zz-000");
    await page.getByRole("button", { name: "Next page" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/entities?prefix=zz-&after=zz-049`);
    await expect.poll(() => names()).toEqual(["zz-050", "zz-051", "zz-052", "zz-053", "zz-054"]);
    expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await page.reload();
    await expect.poll(() => names()).toEqual(["zz-050", "zz-051", "zz-052", "zz-053", "zz-054"]);
    await page.getByRole("button", { name: "First page" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/entities?prefix=zz-`);
    await expect.poll(() => rows().count()).toBe(50);
  });
});
