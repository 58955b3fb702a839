// engram import holds every line of its file to what POST /records would take (docs/export.md,
// "Import"): a text over the API's 100,000 characters, a seq below 1, a column its kind does not
// have, nesting deeper than a request body's, content its collection's schema refuses, and the
// API's other bounds are each refused with exit 1, one line on stderr naming the line and the
// rule, and nothing written: the workspace it would have created does not exist, and an existing
// empty one stays empty. The export itself still imports.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/index.js";
import type { Db } from "../../src/platform/db/index.js";
import { exportWorkspace } from "../../src/portability/index.js";
import { createWorkspace } from "../../src/workspaces/index.js";
import { testConfig } from "../support/app.js";
import { MINIMAL_PACKAGE, minimalFiles } from "../support/catalog-files.js";
import { cliStorage, runCli, holdings as workspaceHoldings } from "../support/cli.js";

type Line = Record<string, unknown>;

describe("engram import validates every line like the API", () => {
  let env: NodeJS.ProcessEnv;
  let open: () => Promise<Db>;
  let release: (db: Db) => Promise<void>;
  let cleanup: () => Promise<void>;
  let dir: string;
  let lines: string[];

  /** The file with the first line of this kind changed; returns its path and that line's number. */
  async function variant(name: string, kind: string, change: (line: Line) => Line | string) {
    const at = lines.findIndex((line) => JSON.parse(line).kind === kind);
    expect(at, kind).toBeGreaterThan(0);
    const changed = change(JSON.parse(lines[at] as string));
    const copy = [...lines];
    copy[at] = typeof changed === "string" ? changed : JSON.stringify(changed);
    const path = join(dir, `${name}.jsonl`);
    await writeFile(path, `${copy.join("\n")}\n`);
    return { path, number: at + 1 };
  }

  const holdings = (names: string[]) => workspaceHoldings({ open, release }, names);

  beforeAll(async () => {
    ({ env, open, release, cleanup, dir } = await cliStorage());
    const db = await open();
    const app = await buildApp({ config: testConfig(), db, version: "test" });
    const source = await createWorkspace(db, "source");
    const headers = { authorization: `Bearer ${source.api_key}` };
    const post = async (url: string, payload: object) => {
      const res = await app.inject({ method: "POST", url, headers, payload });
      expect(res.statusCode, res.body).toBe(200);
    };
    await post("/catalog", { package: MINIMAL_PACKAGE, files: minimalFiles() });
    await post("/records", {
      records: [
        {
          collection: "notes",
          entity: "acme",
          type: "note",
          text: "Invoice 12 was paid late",
          content: { topic: "billing", priority: 2 },
          occurred_at: "2024-01-10T08:30:00.123456Z",
          dedupe_key: "acme-1",
        },
        { collection: "facts", entity: "acme", type: "fact", key: "plan", text: "On the Pro plan" },
      ],
    });
    let text = "";
    await exportWorkspace(db, {
      workspace: source,
      write: async (chunk) => {
        text += chunk;
      },
    });
    lines = text.trimEnd().split("\n");
    await createWorkspace(db, "vacant");
    await app.close();
    await release(db);
  }, 120_000);
  afterAll(async () => {
    await cleanup?.();
  });

  it("imports the export as it is", async () => {
    const path = join(dir, "valid.jsonl");
    await writeFile(path, `${lines.join("\n")}\n`);
    const result = await runCli(["import", "--workspace", "copy", path, "--json"], env);
    expect(result.code, result.stderr).toBe(0);
    expect(await holdings(["copy"])).toEqual({ copy: 2 });
  }, 60_000);

  it("refuses a catalog whose provider the server's MODEL_ENDPOINTS does not allow", async () => {
    const header = JSON.parse(lines[0] as string);
    const install = header.catalog_installs.find((entry: { active: boolean }) => entry.active);
    install.files["conf/models.yaml"] = (install.files["conf/models.yaml"] as string).replace(
      "providers:\n",
      "providers:\n  evil: { adapter: openai, base_url: http://127.0.0.1:19999/v1, api_key_env: DATABASE_URL }\n",
    );
    const path = join(dir, "unlisted-provider.jsonl");
    await writeFile(path, `${[JSON.stringify(header), ...lines.slice(1)].join("\n")}\n`);
    const result = await runCli(["import", "--workspace", "bad-provider", path], {
      ...env,
      MODEL_ENDPOINTS: "",
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/providers\.evil\.base_url: .*MODEL_ENDPOINTS is unset/);
    expect(await holdings(["bad-provider"])).toEqual({});
  }, 60_000);

  it("holds an inactive install to the same provider rules: a forbidden variable is refused, nothing written", async () => {
    const header = JSON.parse(lines[0] as string);
    const active = header.catalog_installs.find((entry: { active: boolean }) => entry.active);
    const earlier = {
      ...structuredClone(active),
      id: "00000000-0000-4000-8000-00000000e001",
      active: false,
      installed_at: "2024-01-01T00:00:00.000Z",
    };
    earlier.files["conf/models.yaml"] = (earlier.files["conf/models.yaml"] as string).replace(
      "providers:\n",
      "providers:\n  evil: { adapter: openai, base_url: http://127.0.0.1:19999/v1, api_key_env: DATABASE_URL }\n",
    );
    header.catalog_installs = [earlier, ...header.catalog_installs];
    const path = join(dir, "inactive-provider.jsonl");
    await writeFile(path, `${[JSON.stringify(header), ...lines.slice(1)].join("\n")}\n`);
    const result = await runCli(["import", "--workspace", "bad-inactive", path], {
      ...env,
      MODEL_ENDPOINTS: "",
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /line 1: catalog install 00000000-0000-4000-8000-00000000e001 \(.*, inactive\): .*providers\.evil\.base_url: .*MODEL_ENDPOINTS is unset/,
    );
    expect(await holdings(["bad-inactive"])).toEqual({});
  }, 60_000);

  it("refuses each broken line with exit 1, the line and the rule named, and nothing written", async () => {
    const deep = 100_000;
    const cases: [string, string, (line: Line) => Line | string, RegExp][] = [
      [
        "text-over-limit",
        "record",
        (line) => ({ ...line, text: "x".repeat(100_001) }),
        /the record line's text must NOT have more than 100000 characters/,
      ],
      [
        "text-5mb",
        "record",
        (line) => ({ ...line, text: "x".repeat(5_000_000) }),
        /the record line's text must NOT have more than 100000 characters/,
      ],
      ["seq-negative", "record", (line) => ({ ...line, seq: -5 }), /the record line's seq must be >= 1/],
      ["seq-fraction", "head", (line) => ({ ...line, seq: 1.5 }), /the head line's seq must be integer/],
      [
        "unknown-column",
        "record",
        (line) => ({ ...line, color: "red" }),
        /the record line's color is not a column of record lines/,
      ],
      [
        "unknown-head-column",
        "head",
        (line) => ({ ...line, colour: "red" }),
        /the head line's colour is not a column of head lines/,
      ],
      [
        "deep",
        "record",
        (line) =>
          JSON.stringify({ ...line, content: {} }).replace(
            '"content":{}',
            `"content":{"topic":${"[".repeat(deep)}${"]".repeat(deep)}}`,
          ),
        /the line nests deeper than 72 levels of objects and arrays/,
      ],
      [
        "content-schema",
        "record",
        (line) => ({ ...line, content: { topic: "billing", priority: "high" } }),
        /the record line's content\.priority must be integer/,
      ],
      [
        "entity-too-long",
        "record",
        (line) => ({ ...line, entity: "e".repeat(257) }),
        /the record line's entity must NOT have more than 256 characters/,
      ],
      [
        "occurred-at",
        "record",
        (line) => ({ ...line, occurred_at: "yesterday" }),
        /the record line's occurred_at must be an ISO 8601 timestamp with a timezone/,
      ],
      ["nul", "record", (line) => ({ ...line, text: "a\u0000b" }), /text must not contain the NUL character/],
      [
        "line-too-long",
        "record",
        (line) => ({ ...line, content: { topic: "t".repeat(16 * 1024 * 1024) } }),
        /the line is longer than 16777216 characters/,
      ],
    ];
    const names: string[] = [];
    for (const [name, kind, change, message] of cases) {
      const { path, number } = await variant(name, kind, change);
      // Each into a new workspace, and the first into an existing empty one as well.
      for (const workspace of names.length === 0 ? [`bad-${name}`, "vacant"] : [`bad-${name}`]) {
        const result = await runCli(["import", "--workspace", workspace, path], env);
        expect(result.code, `${name}: ${result.stderr}`).toBe(1);
        expect(result.stderr, name).toMatch(
          new RegExp(`^engram: line ${number}: .*nothing was imported\\n$`),
        );
        expect(result.stderr, name).toMatch(message);
        expect(result.stdout, name).toBe("");
      }
      names.push(`bad-${name}`);
    }
    expect(await holdings([...names, "vacant"])).toEqual({ vacant: 0 });
  }, 240_000);
});
