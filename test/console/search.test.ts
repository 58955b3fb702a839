import type { Locator, Page } from "playwright-core";
import { expect, it } from "vitest";
import { type ConsoleServer, consoleSuite } from "./harness.js";

const specUrl = (server: ConsoleServer, spec: object) =>
  `${server.url}/console/search?spec=${encodeURIComponent(JSON.stringify(spec))}`;

/** The JSON editor's spec, parsed. */
async function editorSpec(page: Page): Promise<Record<string, unknown>> {
  return JSON.parse(await page.getByLabel("Search request (JSON)").inputValue());
}

const hits = (page: Page): Locator => page.getByTestId("hit");

consoleSuite("console: search playground", {}, (ctx) => {
  it("runs a hybrid search from the form and explains a hit", async () => {
    const { page, server } = ctx;
    await page.getByRole("link", { name: "Search" }).click();
    await page.getByLabel("Query (q)").fill("invoice export timeout");
    await page.getByLabel("Mode", { exact: true }).selectOption("hybrid");
    await page.getByRole("checkbox", { name: "customer_events" }).check();
    await page.getByRole("button", { name: "Run search" }).click();

    await expect.poll(() => hits(page).count()).toBeGreaterThan(0);
    // The spec that ran is in the address.
    const ran = JSON.parse(new URL(page.url()).searchParams.get("spec") ?? "{}");
    expect(ran).toMatchObject({
      mode: "hybrid",
      q: "invoice export timeout",
      scope: { collections: ["customer_events"] },
    });
    expect(ran.explain).toBeUndefined();

    const first = hits(page).first();
    await expect.poll(() => first.textContent()).toContain("The invoice export to CSV fails with a timeout");
    await first.getByText("Why #1 ranked there").click();
    const panel = first.getByTestId("explain");
    await panel.waitFor();
    const similarity = Number(
      await panel.getByTestId("signal-similarity").locator("[data-value]").getAttribute("data-value"),
    );
    const textMatch = Number(
      await panel.getByTestId("signal-text_match").locator("[data-value]").getAttribute("data-value"),
    );
    expect(similarity).toBeGreaterThan(0);
    expect(textMatch).toBeGreaterThan(0);
    // The rank expression's root is the hit's rank_score, and its leaves are the signals above.
    const rankScore = Number(await first.getByTestId("rank-score").getAttribute("data-value"));
    const root = Number(await panel.getByTestId("rank-root").getAttribute("data-value"));
    expect(root).toBe(rankScore);
    const tree = panel.getByTestId("rank-tree");
    await expect.poll(() => tree.textContent()).toMatch(/^sum/);
    expect(await tree.textContent()).toContain("similarity");
    expect(await tree.textContent()).toContain("text_match");
    expect(await panel.getByTestId("proposed-by").textContent()).toContain("text");

    // The same numbers as the API's own explain for this hit.
    const api = await server.api("POST", "/search", { ...ran, explain: true });
    const apiHit = api.body.hits[0];
    expect(await first.getAttribute("data-id")).toBe(apiHit.id);
    expect(similarity).toBe(apiHit.explain.signals.similarity);
    expect(textMatch).toBe(apiHit.explain.signals.text_match);
  });

  it("brings the results into view when a search runs, and explains the two score columns", async () => {
    const { page, server } = ctx;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/console/search`);
    await page.getByLabel("Query (q)").fill("refund duplicate charge");
    await page.getByRole("button", { name: "Run search" }).click();
    await expect.poll(() => hits(page).count()).toBeGreaterThan(0);
    // The hits table's top is on screen (it sits far below the form at this size).
    await expect
      .poll(() =>
        page.getByRole("table", { name: "Hits" }).evaluate((table) => {
          const top = table.getBoundingClientRect().top;
          return top >= 0 && top < window.innerHeight;
        }),
      )
      .toBe(true);
    await page.getByText("What rank_score and score are").click();
    const legend = page.locator(".score-legend");
    expect(await legend.textContent()).toContain("recency decay");
    expect(await legend.textContent()).toContain("the top hit is 1.0");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("keeps the form and the JSON editor in sync both ways, and an invalid JSON edit leaves the form alone", async () => {
    const { page } = ctx;
    await page.getByRole("button", { name: "New search" }).click();
    // Form → JSON.
    await page.getByLabel("k", { exact: true }).fill("7");
    await page.getByLabel("Query (q)").fill("refund");
    await page.getByRole("checkbox", { name: "customer_facts" }).check();
    await page.getByLabel("Where (JSON)").fill('{"tier": {"eq": "enterprise"}}');
    await page.getByLabel("Rank expression (YAML)").fill("[sum, [[similarity], [const, 1]]]");
    await expect
      .poll(() => editorSpec(page))
      .toMatchObject({
        q: "refund",
        k: 7,
        scope: { collections: ["customer_facts"] },
        where: { tier: { eq: "enterprise" } },
        rank: ["sum", [["similarity"], ["const", 1]]],
      });

    // JSON → form.
    const editor = page.getByLabel("Search request (JSON)");
    await editor.fill(
      JSON.stringify({ mode: "text", q: "single sign-on", k: 3, scope: { entities: ["acme", "globex"] } }),
    );
    await expect.poll(() => page.getByLabel("Query (q)").inputValue()).toBe("single sign-on");
    expect(await page.getByLabel("Mode", { exact: true }).inputValue()).toBe("text");
    expect(await page.getByLabel("k", { exact: true }).inputValue()).toBe("3");
    expect(await page.getByLabel("Entities").inputValue()).toBe("acme, globex");
    expect(await page.getByRole("checkbox", { name: "customer_facts" }).isChecked()).toBe(false);
    expect(await page.getByLabel("Rank expression (YAML)").inputValue()).toBe("");

    // Invalid JSON: an inline message, and the form keeps the last valid spec.
    await editor.fill('{"mode": "vector", "q": ');
    await expect.poll(() => page.getByText(/Invalid JSON/).count()).toBe(1);
    expect(await page.getByLabel("Query (q)").inputValue()).toBe("single sign-on");
    expect(await page.getByLabel("Mode", { exact: true }).inputValue()).toBe("text");
    expect(await editor.getAttribute("aria-invalid")).toBe("true");
    // A form edit then rewrites the editor from the form's spec.
    await page.getByLabel("Query (q)").fill("single sign-on setup");
    await expect
      .poll(() => editorSpec(page))
      .toMatchObject({ mode: "text", q: "single sign-on setup", k: 3 });
    expect(await page.getByText(/Invalid JSON/).count()).toBe(0);

    // The rank expression shows as JSON when asked.
    await page
      .getByLabel("Rank expression (YAML)")
      .fill("[decay, [age_hours, created_at], {midpoint: 24, exponent: 1}]");
    await page.getByRole("radio", { name: "JSON" }).check();
    await expect
      .poll(async () => JSON.parse(await page.getByLabel("Rank expression (JSON)").inputValue()))
      .toEqual(["decay", ["age_hours", "created_at"], { midpoint: 24, exponent: 1 }]);
    await page.getByRole("radio", { name: "YAML" }).check();
  });

  it("reruns a deep link's spec after a reload", async () => {
    const { page, server } = ctx;
    const spec = { mode: "hybrid", q: "password reset", k: 5, include: ["text", "collection", "entity"] };
    await page.goto(specUrl(server, spec));
    await expect.poll(() => hits(page).count()).toBeGreaterThan(0);
    const before = await hits(page).first().getAttribute("data-id");
    await page.reload();
    await expect.poll(() => hits(page).count()).toBeGreaterThan(0);
    expect(await hits(page).first().getAttribute("data-id")).toBe(before);
    expect(await page.getByLabel("Query (q)").inputValue()).toBe("password reset");
    expect(await editorSpec(page)).toEqual(spec);
    expect(await hits(page).first().textContent()).toContain("globex");
  });

  it("shows a refused spec's problem detail and each field it names", async () => {
    const { page, server } = ctx;
    const spec = { mode: "hybrid", q: "invoice", k: 500 };
    const refused = await server.api("POST", "/search", { ...spec, explain: true });
    expect(refused.status).toBe(422);
    await page.goto(specUrl(server, spec));
    const problem = page.getByTestId("problem");
    await expect.poll(() => problem.textContent()).toContain(refused.body.detail);
    expect(await problem.textContent()).toContain(refused.body.errors[0].message);
    expect(await problem.textContent()).toContain(refused.body.code);
    expect(await hits(page).count()).toBe(0);

    // A spec the catalog refuses (no such collection): its detail, too.
    const unknown = { mode: "text", q: "invoice", scope: { collections: ["no_such_collection"] } };
    const answer = await server.api("POST", "/search", { ...unknown, explain: true });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    await page.goto(specUrl(server, unknown));
    await expect.poll(() => problem.textContent()).toContain(answer.body.detail);
  });
});
