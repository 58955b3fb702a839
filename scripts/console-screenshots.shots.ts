// Writes the console screenshots shown in the README (docs/console/*.png): a real `engram serve`
// on a fresh embedded store, the browser suite's seeded workspace, Debian's chromium at 1280×800.
// Run: npm run console:screenshots. It runs under vitest (scripts/console-screenshots.config.ts),
// whose global setup the test support's stores need; the suite itself never includes it.
import { mkdir } from "node:fs/promises";
import { it } from "vitest";
import { openBrowser, signIn, startServer } from "../test/console/harness.js";
import { seed } from "../test/console/seed.js";

const OUT = new URL("../docs/console/", import.meta.url);

it("writes docs/console/*.png", async () => {
  const server = await startServer();
  try {
    const seeded = await seed(server);
    const derived = (await server.api("GET", `/runs/${seeded.profileRunId}`)).body.output_ids[0] as string;
    const spec = {
      mode: "hybrid",
      q: "invoice export timeout",
      k: 5,
      scope: { collections: ["customer_events"] },
      include: ["text", "collection", "entity"],
    };
    const browser = await openBrowser();
    const { page } = browser;
    await mkdir(OUT, { recursive: true });
    await signIn(page, server);
    const shots: [string, string, () => Promise<unknown>][] = [
      [
        "overview",
        "/console",
        async () => {
          await page.getByTestId("count-records").waitFor();
          await page.locator("[data-testid=chart] canvas").nth(2).waitFor({ timeout: 15_000 });
        },
      ],
      [
        "entities",
        "/console/entities",
        () => page.getByRole("link", { name: "acme", exact: true }).waitFor(),
      ],
      ["memories", "/console/memories", () => page.getByRole("table", { name: "Memories" }).waitFor()],
      [
        "write",
        "/console/entity?entity=acme&tab=write&collection=customer_events",
        () => page.getByLabel("Type").waitFor(),
      ],
      ["keys", "/console/keys", () => page.getByRole("table", { name: "Keys" }).waitFor()],
      [
        "entity",
        "/console/entity?entity=acme&tab=document",
        () => page.getByText("Enterprise plan").first().waitFor(),
      ],
      ["record", `/console/record?id=${derived}`, () => page.getByText("Derives from").first().waitFor()],
      [
        "search",
        `/console/search?spec=${encodeURIComponent(JSON.stringify(spec))}`,
        async () => {
          await page.getByText("Why #1 ranked there").click();
          await page.getByText("proposed by", { exact: false }).first().waitFor();
        },
      ],
      [
        "graph",
        `/console/views?name=topic_graph&params=${encodeURIComponent(JSON.stringify({ seed: "billing", depth: 2 }))}`,
        () => page.getByTestId("graph-node").first().waitFor(),
      ],
      ["worker", "/console/worker", () => page.locator("main table tbody tr").first().waitFor()],
      [
        "run",
        `/console/run?id=${seeded.reviewRunId}`,
        () => page.getByRole("table", { name: "Trigger reasons" }).waitFor(),
      ],
      ["catalog", "/console/catalog?tab=definitions", () => page.locator("main pre").first().waitFor()],
      [
        "erase",
        "/console/erase?entity=umbrella",
        () => page.getByRole("heading", { name: /^Preview: erase/ }).waitFor(),
      ],
    ];
    for (const [name, path, ready] of shots) {
      await page.goto(`${server.url}${path}`);
      await ready();
      await page.locator(".top .workspace", { hasText: "demo" }).waitFor();
      await page.screenshot({ path: new URL(`${name}.png`, OUT).pathname });
      console.log(`docs/console/${name}.png`);
    }
    // The same pages in the dark scheme and on a phone.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${server.url}/console/entity?entity=acme&tab=document`);
    await page.getByText("Enterprise plan").first().waitFor();
    await page.screenshot({ path: new URL("entity-dark.png", OUT).pathname });
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/console/memories`);
    await page.getByRole("table", { name: "Memories" }).waitFor();
    await page.screenshot({ path: new URL("memories-phone.png", OUT).pathname });
    await browser.close();
  } finally {
    await server.close();
  }
});
