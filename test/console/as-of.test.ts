// An entity as it was, in a real browser: the as_of control (UTC) and its deep link read the
// document and the timeline as memory held them (the older value of a corrected key, none of the
// later records); "Now" goes back; a document as of the past offers no correction or retraction.
import { expect, it } from "vitest";
import { consoleSuite } from "./harness.js";

consoleSuite("console: an entity as of a moment", {}, (ctx) => {
  let first: { id: string; created_at: string };
  const fact = (text: string) => ({
    collection: "customer_facts",
    entity: "hooli",
    type: "fact",
    key: "plan",
    text,
    content: { value: text },
  });

  it("shows the document and timeline as of a deep-linked moment, and Now again", async () => {
    const { page, server } = ctx;
    const one = await server.api("POST", "/records", { records: [fact("Free plan")] });
    first = (await server.api("GET", `/records/${one.body.inserted[0].id}`)).body;
    await server.api("POST", "/records", { records: [fact("Pro plan")] });

    await page.goto(
      `${server.url}/console/entity?entity=hooli&as_of=${encodeURIComponent(first.created_at)}`,
    );
    const beliefs = page.getByRole("table", { name: "Beliefs in customer_facts" });
    await expect.poll(() => beliefs.textContent()).toContain("Free plan");
    expect(await beliefs.textContent()).not.toContain("Pro plan");
    expect(await page.getByRole("status").first().textContent()).toContain("Memory as it was at");
    expect(await page.getByRole("button", { name: "Retract plan" }).isDisabled()).toBe(true);

    await page
      .getByRole("navigation", { name: "Entity views" })
      .getByRole("link", { name: "Timeline" })
      .click();
    const rows = page.locator("table[aria-label='Timeline records'] tbody tr");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("Free plan");

    await page.getByRole("button", { name: "Now" }).click();
    await expect.poll(() => rows.count()).toBe(2);
    expect(page.url()).not.toContain("as_of");
  });

  it("reads the moment the control is set to (UTC) into the URL", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/entity?entity=hooli`);
    await page.getByLabel("As of (UTC)").fill("2001-02-03T04:05:06");
    await expect.poll(() => page.url()).toContain(`as_of=${encodeURIComponent("2001-02-03T04:05:06.000Z")}`);
    await expect.poll(() => page.getByText("No current keyed facts").count()).toBe(1);
  });
});
