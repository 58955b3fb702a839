import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { exampleRequest, UNLISTED_VIEW } from "../support/example-catalog.js";
import { catalogWithFragment } from "../support/langgraph-fragment.js";
import { consoleSuite, noHorizontalScroll } from "./harness.js";

/** Writes a catalog directory as a person would keep it: files under their relative paths. */
async function writeCatalog(root: string, name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/** `text` with `from` replaced; fails when `from` is not there (the example changed). */
function replaced(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`the example catalog no longer holds ${from}`);
  return out;
}

/** The example package as support@<version>, with `edit` applied to its collections file. */
async function exampleFiles(version: string, edit: (collections: string) => string = (text) => text) {
  const { files } = await exampleRequest();
  return {
    ...files,
    "packages/support.yaml": replaced(
      files["packages/support.yaml"] as string,
      "version: 1.0.0",
      `version: ${version}`,
    ),
    "collections/support.yaml": edit(files["collections/support.yaml"] as string),
  };
}

let root: string;
/** support@1.2.0: a new optional property on customer_facts (additive), an unlisted view, a hidden file. */
let additive: string;
/** support@1.3.0: drops customer_events' channel property, which stored events use. */
let reinterpreting: string;
/** A file that is not YAML. */
let broken: string;
/** support@1.6.0: the LangGraph fragment with another text configuration, a second search place. */
let places: string;
/** support@1.5.0: one more view, listed in the manifest. */
let withView: string;

/** Writes the catalog directories the publish tests upload. */
async function writeCatalogs(): Promise<void> {
  root = await mkdtemp(join(tmpdir(), "engram-console-catalog-"));
  const tier = "tier: { type: string, enum: [free, pro, enterprise] }";
  additive = await writeCatalog(root, "additive", {
    ...(await exampleFiles("1.2.0", (text) =>
      replaced(text, tier, `${tier}\n        region: { type: string }`),
    )),
    "views/unused.yaml": UNLISTED_VIEW,
    ".editor-swap": "not sent",
  });
  reinterpreting = await writeCatalog(
    root,
    "reinterpreting",
    await exampleFiles("1.3.0", (text) =>
      replaced(text, / {8}channel: \{ type: string, enum: \[email, chat, phone, web\] \}\n/, ""),
    ),
  );
  const base = await exampleFiles("1.5.0");
  withView = await writeCatalog(root, "with-view", {
    ...base,
    "views/recent.yaml": `views:
  - name: recent_notes
    version: 1
    active: true
    parameters:
      customer: { type: string, required: true }
    query: { mode: recent, k: 5, scope: { collections: [customer_events], entities: ["{{customer}}"] } }
`,
    "packages/support.yaml": replaced(
      base["packages/support.yaml"] as string,
      "  - orphan_pages@1",
      "  - orphan_pages@1\n  - recent_notes@1",
    ),
  });
  const fragment = (await catalogWithFragment()).files;
  places = await writeCatalog(root, "places", {
    ...fragment,
    "packages/support.yaml": replaced(fragment["packages/support.yaml"] as string, "1.1.0", "1.6.0"),
    "search_profiles/langgraph.yaml": replaced(
      fragment["search_profiles/langgraph.yaml"] as string,
      "text_config: english",
      "text_config: simple",
    ),
  });
  broken = await writeCatalog(root, "broken", {
    ...(await exampleFiles("1.4.0")),
    "views/broken.yaml": "views:\n  - name: [unclosed\n",
  });
}

async function removeCatalogs(): Promise<void> {
  if (root) await rm(root, { recursive: true, force: true });
}

consoleSuite("console: catalog page", { setup: writeCatalogs, teardown: removeCatalogs }, (ctx) => {
  it("shows the active package and each definition as normalized YAML, by a deep link", async () => {
    const { page, server } = ctx;
    const summary = (await server.api("GET", "/catalog")).body;
    const defs = (await server.api("GET", "/catalog/definitions")).body;
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Catalog" }).click();
    await expect.poll(() => page.getByTestId("active-package").textContent()).toBe("support@1.1.0");
    const yaml = page.getByTestId("definition-yaml");
    // The manifest first.
    await expect.poll(async () => parse((await yaml.textContent()) ?? "")).toEqual(defs.manifest);

    const list = page.getByRole("navigation", { name: "Definitions" });
    await list.getByRole("link", { name: "customer_events@1" }).click();
    const id = "collections:customer_events@1";
    await expect.poll(() => new URL(page.url()).searchParams.get("def")).toBe(id);
    await expect.poll(async () => parse((await yaml.textContent()) ?? "")).toEqual(defs.definitions[id]);
    // Normalized: the defaults the YAML file leaves out are there.
    expect(await yaml.textContent()).toContain("required_processors:");
    expect(await page.getByRole("region", { name: "Definition" }).textContent()).toContain(
      summary.metadata.definitions[id],
    );
    await page.reload();
    await expect.poll(async () => parse((await yaml.textContent()) ?? "")).toEqual(defs.definitions[id]);

    await list.getByRole("link", { name: "account_review" }).click();
    await expect.poll(() => yaml.textContent()).toContain("review: required");
    await list.getByRole("link", { name: "Everything (one document)" }).click();
    await expect
      .poll(async () => Object.keys(parse((await yaml.textContent()) ?? "{}").definitions ?? {}))
      .toEqual(Object.keys(defs.definitions));
    await page.setViewportSize({ width: 1024, height: 768 });
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("lists discovery: collections, processors, triggers, views, artifacts and tools", async () => {
    const { page, server } = ctx;
    await page
      .getByRole("navigation", { name: "Catalog sections" })
      .getByRole("link", { name: "Discovery" })
      .click();
    await expect.poll(() => new URL(page.url()).searchParams.get("tab")).toBe("discovery");
    const collections = (await server.api("GET", "/collections")).body.collections;
    const table = page.getByRole("table", { name: "Collections" });
    for (const c of collections) {
      await expect.poll(() => table.getByText(`${c.name}@${c.version}`, { exact: true }).count()).toBe(1);
    }
    const events = table.getByRole("row").filter({ hasText: "customer_events@1" });
    expect(await events.textContent()).toContain("embedder, urgency");
    await events.getByRole("button", { name: "Show JSON of customer_events@1" }).click();
    await expect
      .poll(() => page.getByLabel("JSON of customer_events@1", { exact: true }).textContent())
      .toContain('"mode": "event"');

    const sub = page.getByRole("navigation", { name: "Discovery endpoints" });
    const checks: [string, string, string][] = [
      ["Processors", "Processors", "account_review"],
      ["Triggers", "Triggers", "customer_profile.default"],
      ["Views", "Views", "customer_history@1"],
      ["Artifacts", "Artifacts", "account_brief@1"],
      ["MCP tools", "MCP tools", "log_event"],
    ];
    for (const [link, tableName, text] of checks) {
      await sub.getByRole("link", { name: link }).click();
      await expect.poll(() => page.getByRole("table", { name: tableName }).textContent()).toContain(text);
    }
    expect(new URL(page.url()).searchParams.get("kind")).toBe("tools");
    await page.reload();
    await expect
      .poll(() => page.getByRole("table", { name: "MCP tools" }).textContent())
      .toContain("log_event");
  });

  it("shows the installed catalog's compatibility and prune reports", async () => {
    const { page, server } = ctx;
    const tabs = page.getByRole("navigation", { name: "Catalog sections" });
    await tabs.getByRole("link", { name: "Compatibility" }).click();
    await expect.poll(() => page.getByTestId("verdict").textContent()).toBe("invisible");
    expect(await page.getByTestId("publishable").textContent()).toBe("publishable");
    await tabs.getByRole("link", { name: "Prune" }).click();
    const prune = (await server.api("GET", "/catalog/prune")).body;
    expect(prune.candidates).toEqual([]);
    await expect.poll(() => page.getByTestId("prune-empty").count()).toBe(1);
  });

  it("reports an uploaded directory's dry run, installs nothing, then publishes it after a confirmation", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/catalog?tab=publish`);
    await page.getByLabel("Catalog directory", { exact: true }).setInputFiles(additive);
    const report = page.getByRole("region", { name: "Dry-run report" });
    await expect.poll(() => report.getByTestId("verdict").textContent()).toBe("additive");
    expect(await report.getByTestId("publishable").textContent()).toBe("publishable");
    const changes = report.getByRole("table", { name: "Changed collection contracts" });
    expect(await changes.textContent()).toContain("customer_facts@1");
    const files = Object.keys((await exampleRequest()).files).length + 1;
    expect(await page.getByTestId("upload-summary").textContent()).toBe(
      `Read ${files} files from additive; skipped 1 hidden.`,
    );
    expect(await page.getByLabel("Package to publish").inputValue()).toBe("support@1.2.0");
    // A dry run installs nothing.
    expect((await server.api("GET", "/catalog")).body.package).toBe("support@1.1.0");

    await page.getByRole("button", { name: "Publish support@1.2.0" }).click();
    const dialog = page.getByRole("dialog", { name: "Publish support@1.2.0?" });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    const text = (await dialog.textContent()) ?? "";
    expect(text).toContain("support@1.1.0");
    expect(text).toContain("demo");
    expect(text).toContain("additive");
    await dialog.getByRole("button", { name: "Publish support@1.2.0" }).click();
    await expect.poll(() => page.getByTestId("published-package").textContent()).toBe("support@1.2.0");
    await expect.poll(() => page.getByTestId("active-package").textContent()).toBe("support@1.2.0");
    expect((await server.api("GET", "/catalog")).body.package).toBe("support@1.2.0");

    // The unlisted view the upload carried is now a prune candidate nothing references.
    await page
      .getByRole("navigation", { name: "Catalog sections" })
      .getByRole("link", { name: "Prune" })
      .click();
    const candidates = page.getByRole("table", { name: "Prune candidates" });
    await expect.poll(() => candidates.textContent()).toContain("views:unused_view@1");
    expect(await page.getByRole("list", { name: "Safe to delete" }).textContent()).toContain(
      "views:unused_view@1",
    );
  });

  it("shows why an upload cannot be published: blockers, or the problem's detail", async () => {
    const { page, server } = ctx;
    await page.goto(`${server.url}/console/catalog?tab=publish`);
    await page.getByLabel("Catalog directory", { exact: true }).setInputFiles(reinterpreting);
    const report = page.getByRole("region", { name: "Dry-run report" });
    await expect.poll(() => report.getByTestId("verdict").textContent()).toBe("reinterpreting");
    expect(await report.getByTestId("publishable").textContent()).toBe("not publishable");
    const blockers = report.getByRole("table", { name: "Blockers" });
    expect(await blockers.textContent()).toContain("customer_events@1");
    expect(await page.getByRole("button", { name: "Publish support@1.3.0" }).isDisabled()).toBe(true);

    await page.getByLabel("Catalog directory", { exact: true }).setInputFiles(broken);
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain("views/broken.yaml");
    expect(await alert.textContent()).toContain("yaml_syntax");
    expect(await page.getByRole("button", { name: "Publish support@1.4.0" }).isDisabled()).toBe(true);
    expect((await server.api("GET", "/catalog")).body.package).toBe("support@1.2.0");
    expect(await noHorizontalScroll(page)).toBe(true);
  });

  it("shows the dry run's definition changes: an added view, the manifest's diff, the verdict in words", async () => {
    const { page, server } = ctx;
    const installed = (await server.api("GET", "/catalog")).body.package as string;
    await page.goto(`${server.url}/console/catalog?tab=publish`);
    await page.getByLabel("Catalog directory", { exact: true }).setInputFiles(withView);
    const changes = page.getByRole("region", { name: "Definition changes" });
    await expect.poll(() => changes.textContent()).toContain(`from ${installed} to support@1.5.0`);
    expect(await changes.getByRole("list", { name: "Added definitions" }).textContent()).toBe(
      "views:recent_notes@1",
    );
    const manifest = changes.locator("pre[data-label='Changes to package']");
    expect(await manifest.locator(".diff-added").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("recent_notes@1")]),
    );
    expect(await manifest.locator(".diff-removed").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining(installed.split("@")[1] as string)]),
    );
    const report = page.getByRole("region", { name: "Dry-run report" });
    // Whatever the verdict, it is said in words beside its badge.
    expect(await report.textContent()).toMatch(
      /No stored record is read differently|Stored records still satisfy/,
    );
    expect((await server.api("GET", "/catalog")).body.package).toBe(installed);
  });

  it("shows a dry run's warnings: default collections a search naming none would be refused across", async () => {
    const { page, server } = ctx;
    const installed = (await server.api("GET", "/catalog")).body.package as string;
    await page.goto(`${server.url}/console/catalog?tab=publish`);
    await page.getByLabel("Catalog directory", { exact: true }).setInputFiles(places);
    const report = page.getByRole("region", { name: "Dry-run report" });
    const warnings = report.getByRole("region", { name: "Warnings" });
    await expect.poll(() => warnings.textContent()).toContain("indexed in 2 different ways");
    expect(await warnings.getByRole("listitem").count()).toBe(1);
    expect((await server.api("GET", "/catalog")).body.package).toBe(installed);
  });
});
