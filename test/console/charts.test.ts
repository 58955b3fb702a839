// The overview's charts in a real browser, drawn from real data: records written per day (the
// numbers equal GET /workspace/activity's, and the chart is a drawn canvas), jobs by state now,
// and the enrichment lag sampled while the page is shown.
import { expect, it } from "vitest";
import { consoleSuite } from "./harness.js";

consoleSuite("console: overview charts", {}, (ctx) => {
  it("draws records per day, jobs by state and the enrichment lag from the API", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console`);
    const charts = page.getByTestId("chart");
    // The lag needs two samples, the second one refresh later.
    await expect.poll(() => charts.count(), { timeout: 15_000 }).toBe(3);
    // Each chart is a canvas uPlot drew on (not blank): it paints on a frame after it appears.
    const drawn = () =>
      charts.evaluateAll((boxes) =>
        boxes.map((box) => {
          const canvas = box.querySelector("canvas");
          if (!canvas || canvas.width === 0) return false;
          const pixels = canvas.getContext("2d")?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
          return Array.prototype.some.call(pixels, (value: number, i: number) => i % 4 === 3 && value > 0);
        }),
      );
    await expect.poll(drawn, { timeout: 10_000 }).toEqual([true, true, true]);

    const activity = (await server.api("GET", "/workspace/activity?days=30")).body.days as {
      day: string;
      records: number;
      derived: number;
    }[];
    const today = activity.at(-1);
    expect(today?.records).toBeGreaterThan(0);
    await page.getByText("The numbers").click();
    const row = page.getByRole("table", { name: "Records per day" }).locator("tbody tr").last();
    expect(await row.locator("td").allTextContents()).toEqual([
      today?.day,
      String((today?.records ?? 0) - (today?.derived ?? 0)),
      String(today?.derived),
    ]);
    const jobs = (await server.api("GET", "/workspace")).body.counts.jobs as Record<string, number>;
    expect(await page.getByRole("img", { name: /^Jobs by state now/ }).getAttribute("aria-label")).toContain(
      `succeeded ${jobs.succeeded}`,
    );
    await expect
      .poll(() => page.getByTestId("lag-now").textContent())
      .toMatch(/Nothing waits|waiting for enrichment/);
  });
});
