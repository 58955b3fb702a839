import { expect, it } from "vitest";
import { type ConsoleContext, consoleSuite, signIn } from "./harness.js";

/** Every URL the page requested (none may carry the key). */
const requested: string[] = [];
const recordRequests = async ({ page }: ConsoleContext) => {
  page.on("request", (request) => requested.push(request.url()));
};

consoleSuite("console: serving, sign-in and overview", { signIn: false, setup: recordRequests }, (ctx) => {
  it("serves every console URL as one page under a strict CSP, with nothing of any workspace in it", async () => {
    const { server } = ctx;
    for (const path of ["/console", "/console/entities?prefix=a", "/console/entity?entity=acme"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      const html = await response.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toContain("Dana Reyes");
    }
    const script = await fetch(`${server.url}/console/assets/console.js`);
    expect(script.headers.get("content-type")).toContain("javascript");
    const text = await script.text();
    for (const secret of [server.key, server.otherKey, "Dana Reyes", "duplicate charge"]) {
      expect(text.includes(secret), secret).toBe(false);
    }
    const missing = await fetch(`${server.url}/console/assets/nothing.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe("not_found");
  });

  it("refuses a wrong key at sign-in with the API's detail, and stores nothing", async () => {
    const { page, server } = ctx;
    // The server's root sends a browser to the console.
    await page.goto(`${server.url}/`);
    await expect.poll(() => new URL(page.url()).pathname).toBe("/console");
    await page.getByLabel("Workspace key").fill("egk_not-a-real-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("not valid");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await expect.poll(() => page.getByRole("navigation", { name: "Console" }).count()).toBe(0);
  });

  it("signs in, shows the overview's real counts, and keeps the key out of URLs and logs", async () => {
    const { page, server } = ctx;
    // The demo's key was printed once at start; nothing the console does logs it again.
    const logged = server.logs().length;
    await signIn(page, server);
    const workspace = (await server.api("GET", "/workspace")).body;
    await expect.poll(() => page.getByTestId("workspace-name").textContent()).toBe("demo");
    await expect
      .poll(() => page.getByTestId("count-records").textContent())
      .toBe(String(workspace.counts.records));
    await expect.poll(() => page.getByText("support@1.1.0").count()).toBe(1);
    expect(workspace.counts.records).toBeGreaterThan(10);
    expect(requested.some((url) => url.includes(server.key))).toBe(false);
    expect(server.logs().slice(logged)).not.toContain(server.key.slice(4));
    // The key lives in this tab's sessionStorage only.
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([server.key]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
  });

  it("keeps the page across a reload (deep links), and moves by keyboard", async () => {
    const { page, server } = ctx;
    await page.getByRole("link", { name: "Worker" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/worker`);
    await page.reload();
    await expect
      .poll(() => page.getByRole("link", { name: "Worker" }).getAttribute("aria-current"))
      .toBe("page");
    await page.getByRole("link", { name: "Overview" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toBe(`${server.url}/console`);
    await page.goto(`${server.url}/console/nowhere`);
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("No console page");
  });

  it("shows another workspace's data only under that workspace's key, and signs out", async () => {
    const { page, server } = ctx;
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, server, server.otherKey);
    await expect.poll(() => page.getByTestId("workspace-name").textContent()).toBe("other");
    await expect.poll(() => page.getByTestId("count-records").textContent()).toBe("0");
    await expect.poll(() => page.getByText("No catalog is published yet.").count()).toBe(1);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.getByLabel("Workspace key").count()).toBe(1);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("says which key is signed in, and marks a read-only one", async () => {
    const { page, server } = ctx;
    await signIn(page, server);
    await expect.poll(() => page.getByTestId("key-scope").textContent()).toBe("key default, admin");
    expect(await page.locator(".top .read-only").count()).toBe(0);
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, server, server.readOnlyKey);
    await expect.poll(() => page.getByTestId("key-scope").textContent()).toBe("key viewer, read-only");
    await expect.poll(() => page.locator(".top .read-only").textContent()).toBe("read-only");
    await page.getByRole("button", { name: "Sign out" }).click();
  });

  it("disables what would write under a read-only key, and says why", async () => {
    const { page, server } = ctx;
    await signIn(page, server, server.readOnlyKey);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Erase" }).click();
    await page.getByLabel("Entity", { exact: true }).fill("anyone");
    const preview = page.getByRole("button", { name: "Preview" });
    await expect.poll(() => preview.isDisabled()).toBe(true);
    expect(await preview.getAttribute("title")).toContain("403 key_read_only");
    await page.getByText("This key is read-only: it can neither preview nor erase.").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    // The same form under a read-write key: Preview is there to press.
    await signIn(page, server, server.otherKey);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Erase" }).click();
    await page.getByLabel("Entity", { exact: true }).fill("anyone");
    await expect.poll(() => page.getByRole("button", { name: "Preview" }).isEnabled()).toBe(true);
    await page.getByRole("button", { name: "Sign out" }).click();
  });
});
