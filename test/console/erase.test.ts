// The erase page in a real browser: an entity previewed (the dry run's counts by collection and
// derived), erased behind a confirmation naming exactly what goes, then the audit; the records are
// gone through the API; a refused request shows its detail and removes nothing.
import { expect, it } from "vitest";
import { consoleSuite } from "./harness.js";

consoleSuite("console: erase", {}, (ctx) => {
  it("previews an entity's erasure from its page, erases it after a confirmation naming it, and shows the audit", async () => {
    const { page, server } = ctx;
    const preview = (await server.api("POST", "/erase?dry_run=true", { entity: "acme" })).body;
    expect(preview.deleted).toBeGreaterThan(5);
    const before = (await server.api("GET", "/timeline?entity=acme&limit=100")).body.records;
    expect(before.length).toBeGreaterThan(0);

    await page.goto(`${server.url}/console/entity?entity=acme`);
    await page.getByRole("link", { name: "Erase this entity" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/erase?entity=acme`);
    expect(await page.getByLabel("Entity", { exact: true }).inputValue()).toBe("acme");
    await expect.poll(() => page.getByTestId("preview-deleted").textContent()).toBe(String(preview.deleted));
    expect(await page.getByTestId("preview-derived").textContent()).toBe(String(preview.derived));
    expect(await page.getByTestId("preview-entities").textContent()).toBe(String(preview.affected_entities));
    const byCollection = page.getByRole("table", { name: "Records removed by collection" });
    for (const [collection, n] of Object.entries(preview.by_collection)) {
      const row = byCollection.locator("tbody tr").filter({ hasText: collection });
      expect(await row.locator("td.num").textContent()).toBe(String(n));
    }
    // The preview removed nothing.
    expect((await server.api("GET", "/timeline?entity=acme&limit=100")).body.records.length).toBe(
      before.length,
    );

    // Cancel first: nothing happens.
    await page.getByRole("button", { name: "Erase…" }).click();
    const dialog = page.getByRole("dialog", { name: "Erase entity acme?" });
    await expect
      .poll(() => dialog.textContent())
      .toContain(`Erase entity acme: ${preview.deleted} records, ${preview.derived} derived`);
    expect(await dialog.textContent()).toContain("Irreversible");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect((await server.api("GET", "/timeline?entity=acme&limit=100")).body.records.length).toBe(
      before.length,
    );

    await page.getByRole("button", { name: "Erase…" }).click();
    await dialog.getByRole("button", { name: `Erase ${preview.deleted} records` }).click();
    const audit = page.getByRole("region", { name: "Erasure audit" });
    await expect.poll(() => audit.getByTestId("erase-deleted").textContent()).toBe(String(preview.deleted));
    expect(await audit.getByTestId("erase-audit-id").textContent()).toMatch(/^[0-9a-f-]{36}$/);
    expect(await audit.getByRole("link", { name: "worker jobs" }).getAttribute("href")).toContain(
      "/console/worker",
    );

    expect((await server.api("GET", "/timeline?entity=acme&limit=100")).body.records).toEqual([]);
    expect((await server.api("GET", `/records/${before[0].id}`)).status).toBe(404);
    expect((await server.api("GET", "/entities?prefix=acme")).body.entities).toEqual([]);
  });

  it("previews chosen records with their derived closure, and shows a refused request's detail", async () => {
    const { page, server } = ctx;
    const [event] = (await server.api("GET", "/timeline?entity=globex&limit=100")).body.records;
    await page.goto(`${server.url}/console/erase`);
    await page.getByLabel("Chosen records").check();
    await page.getByLabel(/Record ids/).fill(event.id);
    await page.getByRole("button", { name: "Preview" }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/console/erase?records=${event.id}`);
    const preview = (await server.api("POST", "/erase?dry_run=true", { records: [event.id] })).body;
    // globex's events are cited by the drafts of its reviewed derivation: the closure takes them too.
    expect(preview.derived).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId("preview-deleted").textContent()).toBe(String(preview.deleted));
    expect(await page.getByTestId("preview-derived").textContent()).toBe(String(preview.derived));
    // Each derived record that goes is named and linked, not only counted.
    const named = (await server.api("POST", "/erase?dry_run=true&list=true", { records: [event.id] })).body
      .derived_records as { id: string; text: string }[];
    expect(named.length).toBe(preview.derived);
    const derivedTable = page.getByRole("table", { name: "Derived records removed" });
    await expect.poll(() => derivedTable.locator("tbody tr").count()).toBe(named.length);
    for (const record of named) {
      expect(await derivedTable.textContent()).toContain(record.text);
      expect(await derivedTable.locator(`a[href$="id=${record.id}"]`).count()).toBe(1);
    }
    await page.getByRole("button", { name: "Erase…" }).click();
    const dialog = page.getByRole("dialog", { name: "Erase 1 chosen record?" });
    await expect
      .poll(() => dialog.textContent())
      .toContain(`Erase 1 chosen record: ${preview.deleted} records, ${preview.derived} derived`);
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await page.goto(`${server.url}/console/erase?records=00000000-0000-4000-8000-000000000009`);
    await expect.poll(() => page.getByText("Nothing to erase: no record matches.").count()).toBe(1);

    await page.goto(`${server.url}/console/erase?records=not-a-record-id`);
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("request_schema");
    expect(await page.getByRole("alert").textContent()).toContain("the request body is invalid");
    expect(await page.getByText("is not a record id").count()).toBe(1);
    expect(await page.getByText("must match pattern").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Erase…" }).count()).toBe(0);
    expect((await server.api("GET", `/records/${event.id}`)).status).toBe(200);
  });
});
