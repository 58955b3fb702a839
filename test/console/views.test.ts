import { expect, it } from "vitest";
import { consoleSuite } from "./harness.js";

consoleSuite("console: views", {}, (ctx) => {
  it("picks a search view, fills the form generated from its input schema, runs it and explains the hits", async () => {
    const { page, server } = ctx;
    await page.getByRole("link", { name: "Views" }).click();
    const picker = page.getByLabel("View", { exact: true });
    // Only active views are offered.
    const active = (await server.api("GET", "/views")).body.views.filter(
      (v: { active: boolean }) => v.active,
    );
    await expect.poll(() => picker.locator("option").count()).toBe(active.length + 1);
    await picker.selectOption("customer_history");
    await expect.poll(() => new URL(page.url()).searchParams.get("name")).toBe("customer_history");

    // Required parameters are marked; defaults are filled in.
    const customer = page.getByLabel(/^customer/);
    await customer.waitFor();
    expect(await page.locator("label[for='param-customer']").textContent()).toContain("(required)");
    expect(await page.locator("label[for='param-limit']").textContent()).not.toContain("(required)");
    expect(await page.getByLabel(/^limit/).inputValue()).toBe("10");
    expect(await customer.getAttribute("required")).not.toBeNull();

    await customer.fill("acme");
    await page.getByLabel(/^question/).fill("invoice export");
    await page.getByLabel(/^limit/).fill("3");
    await page.getByRole("button", { name: "Run view" }).click();
    const hits = page.getByTestId("hit");
    await expect.poll(() => hits.count()).toBeGreaterThan(0);
    expect(await hits.count()).toBeLessThanOrEqual(3);
    const params = JSON.parse(new URL(page.url()).searchParams.get("params") ?? "{}");
    expect(params).toEqual({ customer: "acme", question: "invoice export", limit: 3 });
    expect(await hits.first().textContent()).toContain("The invoice export to CSV fails with a timeout");
    // Search views run with explain.
    await hits.first().getByText("Why #1 ranked there").click();
    const root = Number(await hits.first().getByTestId("rank-root").getAttribute("data-value"));
    expect(root).toBe(Number(await hits.first().getByTestId("rank-score").getAttribute("data-value")));

    // The deep link runs again after a reload, with the form filled from it.
    await page.reload();
    await expect.poll(() => hits.count()).toBeGreaterThan(0);
    expect(await page.getByLabel(/^customer/).inputValue()).toBe("acme");
  });

  it("shows a view's refusal with its detail", async () => {
    const { page, server } = ctx;
    const bad = { customer: "acme", question: "invoice", limit: 500 };
    const refused = await server.api("POST", "/views/customer_history/query", bad);
    expect(refused.status).toBe(422);
    await page.goto(
      `${server.url}/console/views?name=customer_history&params=${encodeURIComponent(JSON.stringify(bad))}`,
    );
    await expect.poll(() => page.getByTestId("problem").textContent()).toContain(refused.body.detail);
  });

  it("draws a graph view as an SVG of nodes and links, with the same as tables", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/views`);
    await page.getByLabel("View", { exact: true }).selectOption("topic_graph");
    await page.getByLabel(/^seed/).fill("billing");
    await page.getByLabel(/^depth/).fill("2");
    expect(await page.getByLabel(/^direction/).inputValue()).toBe("out");
    await page.getByRole("button", { name: "Run view" }).click();

    const svg = page.getByTestId("graph-svg");
    await svg.waitFor();
    const nodes = svg.getByTestId("graph-node");
    await expect.poll(() => nodes.count()).toBe(3);
    expect(await svg.getByTestId("graph-link").count()).toBe(2);
    const labels = await svg.locator(".graph-node-label").allTextContents();
    expect(labels.sort()).toEqual(["billing", "sso", "sync"]);
    // Each link is a drawn path with an arrowhead, between two drawn nodes.
    expect(await svg.locator(".graph-link path").count()).toBe(2);
    expect(await svg.locator(".graph-link path").first().getAttribute("marker-end")).toBe(
      "url(#graph-arrow)",
    );
    const box = await svg.boundingBox();
    expect(box?.width).toBeGreaterThan(400);

    const links = page.getByRole("table", { name: "Links" });
    await expect.poll(() => links.locator("tbody tr").count()).toBe(2);
    expect(await links.textContent()).toContain("relates_to");
    expect(await page.getByRole("table", { name: "Nodes" }).locator("tbody tr").count()).toBe(3);

    // A node is a link: walking from it reruns the view with that seed.
    await svg.getByRole("link", { name: "Walk from sso" }).click();
    await expect
      .poll(() => JSON.parse(new URL(page.url()).searchParams.get("params") ?? "{}").seed)
      .toBe("sso");
    await expect.poll(() => nodes.count()).toBe(2);
    expect(await page.getByLabel(/^seed/).inputValue()).toBe("sso");
  });

  it("says a graph seed no edge names is not in the graph, instead of drawing it alone", async () => {
    const { page, server } = ctx;
    const params = encodeURIComponent(JSON.stringify({ seed: "no-such-page", depth: 2 }));
    await page.goto(`${server.url}/console/views?name=topic_graph&params=${params}`);
    await expect
      .poll(() => page.getByRole("status").first().textContent())
      .toContain("no edge of this graph names it");
    expect(await page.getByTestId("graph-node").count()).toBe(0);
  });
});
