import { expect, it } from "vitest";
import { consoleSuite } from "./harness.js";

// No worker runs here, so a requested backfill stays queued until the console cancels it.
consoleSuite("console: cancelling a backfill", { worker: false }, (ctx) => {
  it("cancels a queued backfill after a confirmation naming it; Cancel in the dialog does nothing", async () => {
    const { page, server } = ctx;
    const started = await server.api("POST", "/backfill", {
      collection: "customer_events",
      version: 1,
      processor: "urgency",
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.id as string;

    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Worker" }).click();
    const cancel = page.getByRole("button", { name: "Cancel backfill of urgency over customer_events@1" });
    await cancel.click();
    const dialog = page.getByRole("dialog", { name: "Cancel this backfill?" });
    await expect.poll(() => dialog.textContent()).toContain("urgency over customer_events@1");
    await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
    expect((await server.api("GET", `/backfill/${id}`)).body.cancel_requested).not.toBe(true);

    await cancel.click();
    await dialog.getByRole("button", { name: "Cancel backfill" }).click();
    await expect
      .poll(async () => {
        const backfill = (await server.api("GET", `/backfill/${id}`)).body;
        return backfill.state === "cancelled" || backfill.cancel_requested === true;
      })
      .toBe(true);
    // The list refreshed: no Cancel button left for it.
    await expect.poll(() => cancel.count()).toBe(0);
  });
});
