// Writing from the console in a real browser, through POST /records: adding an event with content
// from a form generated from the collection's schema, a refused write's error shown on the field
// it names (nothing written), correcting a keyed fact (a new version the history shows superseding
// the old) and retracting one (a tombstone: it leaves the document); a read-only key gets no
// active write control.
import { expect, it } from "vitest";
import { consoleSuite, signIn } from "./harness.js";

consoleSuite("console: writing records", {}, (ctx) => {
  const timeline = async (entity: string) =>
    (await ctx.server.api("GET", `/timeline?entity=${entity}&limit=100`)).body.records as {
      id: string;
      text: string;
    }[];

  it("adds an event from the form generated from its collection's schema", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entity?entity=initech`);
    await page.getByRole("navigation", { name: "Entity views" }).getByRole("link", { name: "Write" }).click();
    await page.getByLabel("Collection").selectOption("customer_events");
    await page.getByLabel("Type").fill("call");
    await page.getByLabel("Text").fill("Called about the renewal quote");
    await page.getByLabel("channel").selectOption("phone");
    await page.getByLabel("priority").fill("3");
    await page.getByRole("button", { name: "Add record" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Written:");
    const row = (await timeline("initech")).find((r) => r.text === "Called about the renewal quote");
    expect(row).toBeDefined();
    const stored = (await server.api("GET", `/records/${row?.id}`)).body;
    expect(stored).toMatchObject({
      collection: "customer_events",
      type: "call",
      content: { channel: "phone", priority: 3 },
    });
  });

  it("shows a refused write's error on the field it names and writes nothing", async () => {
    const { page, server } = ctx;
    const before = (await timeline("initech")).length;
    await page.goto(`${server.url}/console/entity?entity=initech&tab=write&collection=customer_events`);
    await page.getByLabel("Type").fill("call");
    await page.getByLabel("Text").fill("A call with a bad time");
    await page.getByLabel("Occurred at (optional)").fill("yesterday at noon");
    await page.getByRole("button", { name: "Add record" }).click();
    await expect
      .poll(() => page.locator("#write-occurred-error").textContent())
      .toContain("must be an ISO 8601 timestamp with a timezone");
    expect((await timeline("initech")).length).toBe(before);
  });

  it("corrects a keyed fact: a new version the key's history shows superseding the old", async () => {
    const { page, server } = ctx;
    const plan = (
      await server.api("GET", "/document?entity=globex&collections=customer_facts")
    ).body.beliefs.find((b: { key: string }) => b.key === "plan");
    await page.goto(`${server.url}/console/entity?entity=globex`);
    await page.getByRole("link", { name: "Correct plan" }).click();
    await expect.poll(() => page.getByLabel("Text").inputValue()).toBe(plan.text);
    expect(await page.getByLabel("Key").inputValue()).toBe("plan");
    await page.getByLabel("Text").fill("Enterprise plan from next quarter");
    await page.getByRole("button", { name: "Write the correction" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Written:");
    await page.getByRole("link", { name: "History of plan" }).click();
    await expect.poll(() => page.getByText("Enterprise plan from next quarter").count()).toBeGreaterThan(0);
    const history = (
      await server.api("GET", "/document/history?entity=globex&collection=customer_facts&key=plan")
    ).body.versions as { id: string; text: string; superseded_at: string | null; created_at: string }[];
    expect(history[0]?.text).toBe("Enterprise plan from next quarter");
    expect(history[1]?.id).toBe(plan.id);
    expect(history[1]?.superseded_at).toBe(history[0]?.created_at);
  });

  it("retracts a fact behind a confirmation: a tombstone, and the fact leaves the document", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entity?entity=globex`);
    await page.getByRole("button", { name: "Retract plan" }).click();
    const dialog = page.getByRole("dialog", { name: "Retract this fact?" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await server.api("GET", "/document?entity=globex")).body.retractions).toEqual([]);
    await page.getByRole("button", { name: "Retract plan" }).click();
    await dialog.getByRole("button", { name: "Retract" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("plan is retracted");
    const doc = (await server.api("GET", "/document?entity=globex")).body;
    expect(doc.beliefs.map((b: { key: string }) => b.key)).not.toContain("plan");
    expect(doc.retractions.map((r: { key: string }) => r.key)).toContain("plan");
  });

  it("under a read-only key offers no active write control", async () => {
    const { page, server } = ctx;
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, server, server.readOnlyKey, "/console/entity?entity=anyone&tab=write");
    await page.getByLabel("Collection").waitFor();
    const submit = page.getByRole("button", { name: "Add record" });
    expect(await submit.isDisabled()).toBe(true);
    await expect.poll(() => submit.getAttribute("title")).toContain("key_read_only");
  });
});
