// What the console says when there is nothing to show or no server to ask, in a real browser: an
// entity no record names is "not found" (with a way to write its first record) rather than an empty
// document with an erase button; an API that cannot be reached is said in words; and the worker
// page's lists refresh themselves while it is open.
import { expect, it } from "vitest";
import { consoleSuite } from "./harness.js";

consoleSuite("console: empty and failing states", {}, (ctx) => {
  it("says an unknown entity is not there, offers its first record, and no erase", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entity?entity=nobody-at-all`);
    await expect
      .poll(() => page.getByRole("status").first().textContent())
      .toContain("No entity “nobody-at-all” in this workspace");
    expect(await page.getByRole("link", { name: "Erase this entity" }).count()).toBe(0);
    await page.getByRole("link", { name: "Write its first record" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/entity?entity=nobody-at-all&tab=write`);
    await page.getByLabel("Collection").waitFor();
  });

  it("says a record or a run that is not there is not found", async () => {
    const { page, server } = ctx;
    for (const path of ["record", "run"]) {
      await page.goto(`${server.url}/console/${path}?id=00000000-0000-4000-8000-000000000042`);
      await expect.poll(() => page.getByTestId("not-found").textContent()).toContain("Not found");
      expect(await page.getByRole("alert").count()).toBe(0);
    }
  });

  it("says the server cannot be reached instead of a browser's fetch error", async () => {
    const { page, server } = ctx;
    await page.route(`${server.url}/document*`, (route) => route.abort("connectionrefused"));
    await page.route(`${server.url}/timeline*`, (route) => route.abort("connectionrefused"));
    try {
      await page.goto(`${server.url}/console/entity?entity=acme`);
      await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("cannot be reached");
      expect(await page.getByText("Failed to fetch").count()).toBe(0);
    } finally {
      await page.unrouteAll();
    }
  });

  it("refreshes the worker page's jobs while it is open", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/worker`);
    const jobs = page.getByRole("table", { name: "Jobs" });
    await jobs.waitFor();
    const written = await server.api("POST", "/records", {
      records: [
        { collection: "customer_events", entity: "acme", type: "note", text: "A note the worker enriches" },
      ],
    });
    const jobId = written.body.job_id as string;
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => jobs.textContent(), { timeout: 15_000 }).toContain(jobId.slice(0, 8));
  });
});
