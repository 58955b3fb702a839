// `engram catalog init`: the starter catalog it writes loads with the catalog loader, publishes
// as it is (through POST /catalog and through the publish command it prints), and its two
// collections are found by a hybrid search once the fake provider has embedded them.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { exampleCatalogRequest, loadCatalog, readCatalogDirectory } from "../../src/catalog/index.js";
import { initCatalog, type Template } from "../../src/cli/catalog-init.js";
import { CliError } from "../../src/cli/run.js";
import { createTestApp, type TestApp } from "../support/app.js";
import { cliEnv, runCli } from "../support/cli.js";
import { EXAMPLE_DIR } from "../support/example-catalog.js";
import { enrichAll } from "../support/worker.js";

const WRITTEN = [
  "collections/main.yaml",
  "conf/models.yaml",
  "conf/rank.yaml",
  "packages/starter.yaml",
  "processors/embedder.yaml",
  "search_profiles/main.yaml",
];

let root: string;
const env = cliEnv({});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "engram-catalog-init-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("engram catalog init DIR", () => {
  let dir: string;
  let stdout: string;

  beforeAll(async () => {
    // Two levels that do not exist yet: DIR is created.
    dir = join(root, "new", "memory");
    const result = await runCli(["catalog", "init", dir], env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    stdout = result.stdout;
  });

  it("writes the six commented YAML files and prints them with the publish command", async () => {
    const files = await readCatalogDirectory(dir);
    expect(Object.keys(files).sort()).toEqual(WRITTEN);
    for (const [path, text] of Object.entries(files)) {
      expect(text.startsWith("# "), path).toBe(true);
      expect(() => parse(text), path).not.toThrow();
    }
    for (const path of WRITTEN) expect(stdout).toContain(`  ${path}\n`);
    expect(stdout).toContain(`npm exec -- engram catalog publish ${dir} --package starter@1.0.0\n`);
  });

  it("loads with the catalog loader: two collections, full-text and local embeddings, fake and OpenAI providers", async () => {
    const { index } = loadCatalog(await readCatalogDirectory(dir), "starter@1.0.0");
    const events = index.collections.get("events@1")?.def;
    const facts = index.collections.get("facts@1")?.def;
    expect(events).toMatchObject({ mode: "event", active: true, search_profile: "main" });
    expect(facts).toMatchObject({ mode: "keyed", active: true, search_profile: "main" });
    expect(events?.required_processors).toEqual(["embedder"]);
    expect(facts?.required_processors).toEqual(["embedder"]);
    expect(index.processors.get("embedder")?.def).toMatchObject({
      kind: "embedding",
      model: "embed",
      input: { collections: ["events", "facts"] },
    });
    expect(index.searchProfiles.get("main")?.def).toMatchObject({
      embedding: "embed",
      text_config: "english",
      text_rank: { kind: "bm25", k1: 1.2, b: 0.75 },
    });
    const models = index.models.def;
    expect(models.aliases.embed).toMatchObject({
      kind: "embedding",
      provider: "words",
      model: "wink-sg-100d",
    });
    expect(models.providers.words?.adapter).toBe("local");
    expect(models.providers.local?.adapter).toBe("fake");
    // The OpenAI provider is a commented example: unlisted in MODEL_ENDPOINTS it would not publish.
    expect(models.providers.openai).toBeUndefined();
    // The switch to OpenAI embeddings is spelled out in a comment.
    const modelsYaml = await readFile(join(dir, "conf/models.yaml"), "utf8");
    expect(modelsYaml).toMatch(/^ {2}# openai:$/m);
    expect(modelsYaml).toMatch(/^ {2}# {3}provider: openai$/m);
    expect(modelsYaml).toMatch(/^ {2}# {3}dimensions: \d+$/m);
    expect(modelsYaml).toMatch(/^ {2}# {3}space: \S+$/m);
  });

  it("the commented OpenAI provider and embedding alias load in place of the fake one", async () => {
    const files = await readCatalogDirectory(dir);
    const yaml = files["conf/models.yaml"] as string;
    const uncomment = (block: RegExp) => (block.exec(yaml)?.[0] ?? "").replace(/^ {2}# /gm, "  ");
    const provider = uncomment(/^ {2}# openai:\n(?: {2}# {3}.*\n)+/m);
    const alias = uncomment(/^ {2}# embed:\n(?: {2}# {3}.*\n)+/m);
    expect(alias).toContain("provider: openai");
    files["conf/models.yaml"] = yaml
      .replace(/^providers:\n/m, `providers:\n${provider}`)
      .replace(/^ {2}embed:\n(?: {4}.*\n)+/m, alias);
    const { index } = loadCatalog(files, "starter@1.0.0");
    expect(index.models.def.aliases.embed).toMatchObject({ kind: "embedding", provider: "openai" });
    expect(index.models.def.providers.openai).toMatchObject({
      adapter: "openai",
      base_url: "https://api.openai.com/v1",
      api_key_env: "OPENAI_API_KEY",
    });
  });

  describe("published into a workspace", () => {
    let t: TestApp;
    let headers: { authorization: string };
    let ids: { event: string; fact: string };

    beforeAll(async () => {
      t = await createTestApp();
      const ws = await t.workspace("starter");
      headers = ws.headers;
      const request = await exampleCatalogRequest(dir);
      expect(request.package).toBe("starter@1.0.0");
      const published = await t.publish(headers, request);
      expect(published.statusCode, published.body).toBe(200);
      const [event, fact] = await t.writeRecords(headers, [
        {
          collection: "events",
          entity: "alice",
          type: "note",
          text: "Alice asked why her quokka invoice was charged twice",
          content: { topic: "billing" },
        },
        {
          collection: "facts",
          entity: "alice",
          type: "fact",
          key: "plan",
          text: "Alice pays for the quokka pro plan",
          content: { value: "pro" },
        },
      ]);
      ids = { event: event as string, fact: fact as string };
      await enrichAll(t.db, ws.id);
    });
    afterAll(() => t.close());

    const search = async (body: object) => {
      const res = await t.app.inject({ method: "POST", url: "/search", headers, payload: body });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().hits.map((hit: { id: string }) => hit.id);
    };

    it("a hybrid search finds the event and the keyed fact once the fake provider embedded them", async () => {
      const hits = await search({ q: "quokka invoice plan", mode: "hybrid", scope: { entities: ["alice"] } });
      expect(new Set(hits)).toEqual(new Set([ids.event, ids.fact]));
      // Both came through the embedding space too, not by their words alone.
      const vector = await search({
        q: "quokka",
        mode: "vector",
        scope: { collections: ["events", "facts"] },
      });
      expect(new Set(vector)).toEqual(new Set([ids.event, ids.fact]));
    });

    it("the publish command init printed publishes it as it is", async () => {
      const other = await t.workspace("starter-cli");
      const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
      const printed = /npm exec -- engram (catalog publish .*)$/m.exec(stdout)?.[1] ?? "";
      const args = printed.split(" ");
      expect(args).toEqual(["catalog", "publish", dir, "--package", "starter@1.0.0"]);
      const result = await runCli(args, cliEnv({ ENGRAM_API_URL: url, ENGRAM_API_KEY: other.key }));
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ package: "starter@1.0.0" });
    });
  });
});

describe("engram catalog init refusals and --name", () => {
  it("refuses a directory that is not empty: exit 1, a clear message, nothing written", async () => {
    const dir = join(root, "taken");
    await mkdir(dir);
    await writeFile(join(dir, "notes.txt"), "mine\n");
    const result = await runCli(["catalog", "init", dir], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `engram: ${dir} is not empty; catalog init writes only into a new or empty directory\n`,
    );
    expect(await readdir(dir, { recursive: true })).toEqual(["notes.txt"]);
  });

  // One real process per behavior; the variations run in process (each process takes seconds).
  it("writes into an existing empty directory", async () => {
    const dir = join(root, "empty");
    await mkdir(dir);
    expect(await initCatalog(dir)).toEqual({ files: WRITTEN, package: "starter@1.0.0" });
    expect(Object.keys(await readCatalogDirectory(dir)).sort()).toEqual(WRITTEN);
  });

  it("--name sets the package name, its manifest file and the printed --package", async () => {
    const name = "team.notes-2";
    const dir = join(root, "named");
    const result = await runCli(["catalog", "init", dir, "--name", name], env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`  packages/${name}.yaml\n`);
    expect(result.stdout).toContain(`--package ${name}@1.0.0\n`);
    const files = await readCatalogDirectory(dir);
    expect(Object.keys(files).sort()).toEqual(WRITTEN.map((p) => p.replace("starter", name)).sort());
    expect(parse(files[`packages/${name}.yaml`] as string).name).toBe(name);
    expect(loadCatalog(files, `${name}@1.0.0`).package).toBe(`${name}@1.0.0`);
  });

  it("--template conversation writes the conversation catalog, package conversation@1.0.0", async () => {
    const dir = join(root, "chat");
    const result = await runCli(["catalog", "init", dir, "--template", "conversation"], env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `npm exec -- engram catalog publish ${dir} --package conversation@1.0.0\n`,
    );
    const files = await readCatalogDirectory(dir);
    // Every shipped catalog ranks hybrid search by the one measured formula (docs/catalog.md).
    const shipped = await readCatalogDirectory(EXAMPLE_DIR);
    const starter = await readFile(
      new URL("../../src/cli/catalog-templates/starter/conf/rank.yaml", import.meta.url),
    );
    for (const rank of [files["conf/rank.yaml"], starter.toString()]) {
      expect(parse(rank as string)).toEqual(parse(shipped["conf/rank.yaml"] as string));
    }
    expect(Object.keys(files).sort()).toEqual([
      "artifacts/profile.yaml",
      "collections/conversation.yaml",
      "conf/models.yaml",
      "conf/rank.yaml",
      "derivations/memories.yaml",
      "mcp/conversation.yaml",
      "packages/conversation.yaml",
      "processors/embedder.yaml",
      "search_profiles/conversation.yaml",
      "views/recall.yaml",
    ]);
    const { index } = loadCatalog(files, "conversation@1.0.0");
    expect(index.collections.get("messages@1")?.def.mode).toBe("event");
    expect(index.collections.get("memories@1")?.def.mode).toBe("keyed");
    expect(index.derivations.get("extract_memories")?.def.emit).toMatchObject({
      collection: "memories",
      key_rule: "dotted",
      keys: null,
    });
    expect(index.mcp?.def.tools.map((tool) => [tool.name, tool.kind])).toEqual([
      ["remember", "ingest"],
      ["recall", "view"],
      ["forget", "retract"],
      ["profile", "artifact"],
    ]);
  });

  it("refuses an unknown --template before writing anything", async () => {
    const dir = join(root, "no-template");
    const error = await initCatalog(dir, { template: "wiki" as Template }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toBe(
      '--template "wiki" is not a template: use one of starter, conversation',
    );
    expect(await exists(dir)).toBe(false);
  });

  it("a name YAML would read as a number is written quoted and stays a string", async () => {
    const dir = join(root, "numeric");
    expect((await initCatalog(dir, { name: "123" })).package).toBe("123@1.0.0");
    const files = await readCatalogDirectory(dir);
    expect(parse(files["packages/123.yaml"] as string).name).toBe("123");
    expect(loadCatalog(files, "123@1.0.0").package).toBe("123@1.0.0");
  });

  it("refuses a bad --name before writing anything", async () => {
    const dir = join(root, "never");
    const result = await runCli(["catalog", "init", dir, "--name", "Bad Name"], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `engram: --name "Bad Name" is not a package name: use 1 to 64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit\n`,
    );
    expect(await exists(dir)).toBe(false);
    for (const name of ["-leading-dash", "x".repeat(65), "a/b", ""]) {
      const error = await initCatalog(dir, { name }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CliError);
      expect((error as Error).message).toContain(`--name ${JSON.stringify(name)} is not a package name`);
    }
    expect(await exists(dir)).toBe(false);
  });
});
