// A read-only key in a real browser, on every page and deep link of the demo workspace: no request
// a read-only key is refused (a write, an erase preview, a publish check, a key change) is ever
// sent, even by a deep link that names one, and every control that would send one is disabled or
// absent.
import type { Request } from "playwright-core";
import { expect, it } from "vitest";
import { consoleSuite, signIn } from "./harness.js";

/** Requests a read-only key may send: reads, and the POSTs that only read (search, views, renders). */
function reads(request: Request): boolean {
  const { pathname } = new URL(request.url());
  if (request.method() === "GET") return true;
  if (request.method() !== "POST") return false;
  return (
    pathname === "/search" ||
    /^\/views\/[^/]+\/query$/.test(pathname) ||
    /^\/artifacts\/[^/]+\/render$/.test(pathname)
  );
}

/** Buttons that change nothing on the server. */
const HARMLESS =
  /^(Sign out|Menu|Refresh.*|Next page|First page|Now|Open|Run search|Query|Render|Cancel|Copy|Explain.*|Why .*|Show .*|Hide .*|Add source|Remove.*|Format.*|Reset.*|Search|New search|Start from the default formula|Filter .*|Preview|Check)$/;

consoleSuite("console: a read-only key", {}, (ctx) => {
  it("sends no write and offers no active write control on any page or deep link", async () => {
    const { page, server } = ctx;
    const created = await server.api("POST", "/keys", { name: "viewer", scope: "read_only" });
    expect(created.status).toBe(201);
    const refused: string[] = [];
    page.on("request", (request) => {
      if (
        new URL(request.url()).origin === server.url &&
        !reads(request) &&
        !request.url().includes("/console")
      )
        refused.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, server, created.body.api_key);
    const event = (await server.api("GET", "/timeline?entity=acme&limit=1")).body.records[0].id as string;
    const paths = [
      "/console",
      "/console/entities",
      "/console/memories",
      "/console/entity?entity=acme",
      "/console/entity?entity=acme&tab=timeline",
      "/console/entity?entity=acme&tab=drafts",
      "/console/entity?entity=globex&tab=drafts",
      "/console/entity?entity=acme&tab=write&collection=customer_events",
      `/console/record?id=${event}`,
      "/console/search",
      "/console/views",
      "/console/worker",
      "/console/catalog",
      "/console/erase?entity=acme",
      `/console/erase?records=${event}`,
      "/console/keys",
    ];
    const active: string[] = [];
    for (const path of paths) {
      await page.goto(`${server.url}${path}`);
      await page.locator("main h1").first().waitFor();
      await page.waitForLoadState("networkidle");
      const buttons = await page.locator("main button:not([disabled]):visible").allTextContents();
      for (const text of buttons) if (!HARMLESS.test(text.trim())) active.push(`${path}: ${text.trim()}`);
      if (path.startsWith("/console/erase?")) {
        await page.getByText("This key is read-only: the preview and the erasure are requests").waitFor();
      }
      const links = await page.locator("main a:visible").allTextContents();
      for (const text of links)
        if (/^(Erase this entity|Correct|Retract)/.test(text.trim()))
          active.push(`${path}: link ${text.trim()}`);
    }
    expect(active).toEqual([]);
    expect(refused).toEqual([]);
  });
});
