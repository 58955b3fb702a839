// The keys page in a real browser: an admin key lists the workspace's keys (prefix, scope, last
// use, state), creates a read-only key shown once with its warning (the key then works, read-only),
// and revokes it behind a confirmation naming it (the revoked key then fails with 401); a
// read-only key sees no write control, only why.
import { expect, it } from "vitest";
import { consoleSuite, signIn } from "./harness.js";

consoleSuite("console: keys", {}, (ctx) => {
  const rows = () => ctx.page.locator("table[aria-label='Keys'] tbody tr");

  it("lists the keys as GET /keys does, the signed-in one marked", async () => {
    const { page, server } = ctx;
    const keys = `${server.url}/console/keys`;
    const link = page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Keys" });
    // A click while the console still settles its first page can be overtaken by it (CI on a
    // loaded machine once stayed on /console): click again until the Keys page is shown.
    await expect
      .poll(
        async () => {
          if (page.url() !== keys) await link.click();
          return page.url();
        },
        { timeout: 10_000 },
      )
      .toBe(keys);
    const listed = (await server.api("GET", "/keys")).body.keys as { name: string; prefix: string }[];
    await expect.poll(() => rows().count()).toBe(listed.length);
    const first = rows().first();
    expect(await first.textContent()).toContain("(this key)");
    expect(await first.textContent()).toContain("admin");
    expect(await first.locator("code").textContent()).toBe(`${listed[0]?.prefix}…`);
  });

  it("creates a read-only key shown once; it reads and cannot write; revoking it makes it fail", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/keys`);
    await page.getByLabel("Name").fill("recall agent");
    await page.getByLabel("Scope").selectOption("read_only");
    await page.getByLabel("Expires in (optional)").fill("30d");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-key");
    await expect.poll(() => shown.textContent()).toMatch(/^egk_/);
    const key = (await shown.textContent()) as string;
    expect(await page.getByRole("region", { name: "New key" }).textContent()).toContain(
      "shown only this once",
    );
    const row = rows().filter({ hasText: "recall agent" });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain("read_only");

    expect((await server.api("GET", "/workspace", undefined, key)).status).toBe(200);
    const write = await server.api(
      "POST",
      "/records",
      { records: [{ collection: "customer_events", entity: "acme", type: "note", text: "x" }] },
      key,
    );
    expect(write.status).toBe(403);

    await page.getByRole("button", { name: "I stored it" }).click();
    expect(await page.getByTestId("new-key").count()).toBe(0);
    await row.getByRole("button", { name: "Revoke recall agent" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this key?" });
    expect(await dialog.textContent()).toContain("recall agent");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await server.api("GET", "/workspace", undefined, key)).status).toBe(200);
    await row.getByRole("button", { name: "Revoke recall agent" }).click();
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("is revoked");
    await expect.poll(() => row.textContent()).toContain("revoked");
    expect((await server.api("GET", "/workspace", undefined, key)).status).toBe(401);
  });

  it("shows a refused expiry beside its field and creates nothing", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/keys`);
    const before = (await server.api("GET", "/keys")).body.keys.length;
    await page.getByLabel("Name").fill("bad expiry");
    await page.getByLabel("Expires in (optional)").fill("forever");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect
      .poll(() => page.locator(".keys-create .error-text, .keys-create + .error").count())
      .toBeGreaterThan(0);
    expect((await server.api("GET", "/keys")).body.keys.length).toBe(before);
  });

  it("under a read-only key says why and offers no control that writes", async () => {
    const { page, server } = ctx;
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, server, server.readOnlyKey, "/console/keys");
    await expect.poll(() => page.getByText("Only an admin key lists and manages").count()).toBe(1);
    expect(await page.getByRole("button", { name: /Create key|Revoke/ }).count()).toBe(0);
    expect(await page.getByRole("table", { name: "Keys" }).count()).toBe(0);
  });
});
