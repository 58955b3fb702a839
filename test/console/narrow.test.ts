// The console on a phone (390 px wide) and in a dark scheme, in a real browser: no page scrolls
// sideways (tables scroll inside their box), the navigation folds into a menu, and
// prefers-color-scheme: dark gets dark pages.
import { expect, it } from "vitest";
import { consoleSuite, noHorizontalScroll } from "./harness.js";

const PAGES = [
  "/console",
  "/console/entities",
  "/console/memories",
  "/console/entity?entity=acme",
  "/console/entity?entity=acme&tab=timeline",
  "/console/entity?entity=acme&tab=history&collection=customer_facts&key=plan",
  "/console/entity?entity=acme&tab=drafts",
  "/console/entity?entity=acme&tab=write&collection=customer_events",
  "/console/search",
  "/console/views",
  "/console/worker",
  "/console/catalog",
  "/console/erase?entity=umbrella",
  "/console/keys",
];

consoleSuite("console: narrow screens and the dark scheme", {}, (ctx) => {
  it("fits every page in 390 px: nothing scrolls sideways", async () => {
    const { page, server } = ctx;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const wide: string[] = [];
      const run = (await server.api("GET", "/runs?limit=1")).body.runs[0]?.id as string;
      const record = (await server.api("GET", "/records?limit=1")).body.records[0]?.id as string;
      for (const path of [...PAGES, `/console/run?id=${run}`, `/console/record?id=${record}`]) {
        await page.goto(`${server.url}${path}`);
        await page.locator("main h1").first().waitFor();
        await page.waitForLoadState("networkidle");
        if (!(await noHorizontalScroll(page))) {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          wide.push(`${path} (${width} px)`);
        }
      }
      expect(wide).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("folds the navigation into a menu at 390 px", async () => {
    const { page, server } = ctx;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/console`);
      const nav = page.getByRole("navigation", { name: "Console" });
      const menu = page.getByRole("button", { name: "Menu" });
      await menu.waitFor();
      expect(await nav.getByRole("link", { name: "Memories" }).isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await nav.getByRole("link", { name: "Memories" }).click();
      await expect.poll(() => page.url()).toBe(`${server.url}/console/memories`);
      expect(await nav.getByRole("link", { name: "Entities" }).isVisible()).toBe(false);
      await page.setViewportSize({ width: 1280, height: 800 });
      expect(await menu.isVisible()).toBe(false);
      expect(await nav.getByRole("link", { name: "Entities" }).isVisible()).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("follows prefers-color-scheme: dark", async () => {
    const { page, server } = ctx;
    const luminance = () =>
      page.evaluate(() => {
        const [r, g, b] = (
          getComputedStyle(document.documentElement).backgroundColor.match(/\d+/g) ?? []
        ).map(Number);
        return (0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)) / 255;
      });
    await page.goto(`${server.url}/console/entities`);
    expect(await luminance()).toBeGreaterThan(0.8);
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      await page.reload();
      await page.locator("main h1").waitFor();
      expect(await luminance()).toBeLessThan(0.2);
      const card = await page
        .locator(".card")
        .first()
        .evaluate((el) => getComputedStyle(el).color);
      const [r, g, b] = (card.match(/\d+/g) ?? []).map(Number);
      expect(((r ?? 0) + (g ?? 0) + (b ?? 0)) / 3).toBeGreaterThan(150);
    } finally {
      await page.emulateMedia({ colorScheme: "light" });
    }
  });
});
