// engram export / engram import as an operator runs them: the stream on stdout or in a file, an
// import printing a new workspace's key once, the refusals that leave nothing written, and an
// entity's export holding nothing of anyone else.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/http/index.js";
import type { Db } from "../../src/platform/db/index.js";
import { createWorkspace } from "../../src/workspaces/index.js";
import { testConfig } from "../support/app.js";
import { cliStorage, collect, ENGRAM_BIN, runCli, holdings as workspaceHoldings } from "../support/cli.js";
import { ENTITIES, fillWorkspace } from "./fixture.js";

const lines = (text: string) => text.trimEnd().split("\n");

describe("engram export and engram import", () => {
  let env: NodeJS.ProcessEnv;
  // The server keeps one database; the embedded one is opened around each step (one holder).
  let open: () => Promise<Db>;
  let release: (db: Db) => Promise<void>;
  let cleanup: () => Promise<void>;
  let dir: string;
  let sourceKey: string;
  let file: string;

  const holdings = (names: string[]) => workspaceHoldings({ open, release }, names);

  beforeAll(async () => {
    ({ env, open, release, cleanup, dir } = await cliStorage());
    file = join(dir, "source.jsonl");
    const db = await open();
    const app = await buildApp({ config: testConfig(), db, version: "test" });
    const source = await createWorkspace(db, "source");
    sourceKey = source.api_key;
    await fillWorkspace({ app, headers: { authorization: `Bearer ${source.api_key}` } }, db, source.id);
    await createWorkspace(db, "empty");
    await createWorkspace(db, "vacant");
    await app.close();
    await release(db);
  }, 240_000);
  afterAll(async () => {
    await cleanup?.();
  });

  it("export --out writes the whole stream into the file, and never a key", async () => {
    const result = await runCli(["export", "--workspace", "source", "--out", file], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^engram: exported record: \d+, head: \d+, /);
    expect(existsSync(`${file}.partial`)).toBe(false);
    const text = await readFile(file, "utf8");
    const [header, ...rest] = lines(text).map((line) => JSON.parse(line));
    expect(header).toMatchObject({
      format: "engram.export/v1",
      workspace: { name: "source", id: expect.any(String), last_seq: expect.any(Number) },
      entity: null,
      with_embeddings: false,
      catalog_installs: [expect.objectContaining({ package: "demo-pack@1.0.0", active: true })],
    });
    expect(rest.at(-1)).toMatchObject({ kind: "end", counts: { record: expect.any(Number) } });
    expect(text).not.toContain(sourceKey);
    expect(text).not.toMatch(/egk_|key_digest/);
    expect(rest.some((row) => row.kind === "embedding")).toBe(false);
  }, 60_000);

  it("import creates the workspace, prints its key once, and queues enrichment", async () => {
    const result = await runCli(["import", "--workspace", "copy", file, "--json"], env);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({
      workspace: "copy",
      id: expect.any(String),
      api_key: expect.stringMatching(/^egk_[A-Za-z0-9_-]{43}$/),
      enrichment_jobs: expect.any(Number),
    });
    expect(printed.enrichment_jobs).toBeGreaterThan(0);
    const end = JSON.parse(lines(await readFile(file, "utf8")).at(-1) as string);
    expect(printed.counts).toEqual(end.counts);
    expect(await holdings(["copy", "source"])).toEqual({
      copy: end.counts.record,
      source: end.counts.record,
    });
  }, 60_000);

  it("import into an existing empty workspace prints no key, and reads stdin for -", async () => {
    const child = spawn(process.execPath, [ENGRAM_BIN, "import", "--workspace", "empty", "-"], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin?.end(await readFile(file));
    const result = await collect(child);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Imported into workspace empty \([0-9a-f-]+\): record: \d+, head: \d+/);
    expect(result.stdout).not.toMatch(/egk_|key is shown/);
  }, 60_000);

  it("refuses, with exit 1 and nothing written, a workspace holding data and any broken file", async () => {
    const text = await readFile(file, "utf8");
    const all = lines(text);
    const recordAt = all.findIndex((line) => line.includes('"kind":"record"'));
    const variants: Record<string, { content: string; message: RegExp }> = {
      truncated: {
        content: `${all.slice(0, -1).join("\n")}\n`,
        message: /without its end line \(truncated\)/,
      },
      "cut-mid-line": {
        content: text.slice(0, Math.floor(text.length / 2)),
        message: /line \d+: not a JSON object|truncated/,
      },
      "wrong-format": {
        content: [all[0]?.replace("engram.export/v1", "engram.export/v9"), ...all.slice(1)].join("\n"),
        message: /line 1: not an engram\.export\/v1 file/,
      },
      malformed: {
        content: [...all.slice(0, recordAt + 1), "{not json", ...all.slice(recordAt + 1)].join("\n"),
        message: new RegExp(`line ${recordAt + 2}: not a JSON object`),
      },
      "count-mismatch": {
        content: [...all.slice(0, recordAt), ...all.slice(recordAt + 1)].join("\n"),
        message: /the end line counts \d+ record lines, the file holds/,
      },
      "bad-value": {
        content: [
          ...all.slice(0, recordAt),
          all[recordAt]?.replace(/"id":"[0-9a-f-]+"/, '"id":"not-a-uuid"'),
          ...all.slice(recordAt + 1),
        ].join("\n"),
        message: new RegExp(`line ${recordAt + 1}: the record line's id must be a uuid`),
      },
      // Valid line by line, refused by the database: two records of one id.
      "duplicate-id": {
        content: [
          ...all.slice(0, recordAt + 1),
          all[recordAt + 1]?.replace(
            /"id":"[0-9a-f-]+"/,
            all[recordAt]?.match(/"id":"[0-9a-f-]+"/)?.[0] ?? "",
          ),
          ...all.slice(recordAt + 2),
        ].join("\n"),
        message: /lines \d+-\d+ \(record\): .*duplicate key/,
      },
    };
    const before = await holdings(["copy"]);
    // [workspace, file, what stderr says]: a workspace holding data, then each broken file.
    const runs: [string, string, RegExp][] = [
      ["copy", file, /workspace "copy" already holds data \(catalog_installs, records, /],
    ];
    for (const [name, variant] of Object.entries(variants)) {
      const path = join(dir, `${name}.jsonl`);
      await writeFile(path, variant.content);
      runs.push([`broken-${name}`, path, variant.message]);
    }
    // An existing empty workspace stays empty when what it is given is refused.
    runs.push(["vacant", join(dir, "truncated.jsonl"), /truncated/]);
    for (const [workspace, path, message] of runs) {
      const result = await runCli(["import", "--workspace", workspace, path], env);
      expect(result.code, `${workspace}: ${result.stderr}`).toBe(1);
      expect(result.stderr, workspace).toMatch(message);
      expect(result.stderr, workspace).toMatch(/^engram: .*nothing was imported\n$/);
      expect(result.stdout, workspace).toBe("");
    }
    const names = runs.map(([workspace]) => workspace);
    expect(await holdings(names)).toEqual({ ...before, vacant: 0 });
  }, 240_000);

  it("export --entity holds one entity's data and nothing of anyone else, and imports", async () => {
    const result = await runCli(["export", "--workspace", "source", "--entity", "acme"], env);
    expect(result.code, result.stderr).toBe(0);
    const rows = lines(result.stdout).map((line) => JSON.parse(line));
    expect(rows[0]).toMatchObject({ format: "engram.export/v1", entity: "acme" });
    const kinds = new Set(rows.slice(1, -1).map((row) => row.kind));
    expect([...kinds].sort()).toEqual(
      ["cursor", "derivation_state", "head", "record", "record_access", "run"].sort(),
    );
    for (const row of rows.slice(1, -1)) {
      if ("entity" in row && row.entity !== null) expect(row.entity, JSON.stringify(row)).toBe("acme");
    }
    const others = Object.entries(ENTITIES).filter(([entity]) => entity !== "acme");
    for (const [entity, texts] of others) {
      expect(result.stdout.toLowerCase()).not.toContain(entity);
      for (const text of texts) expect(result.stdout).not.toContain(text);
    }
    for (const text of ENTITIES.acme) expect(result.stdout).toContain(text);
    const path = join(dir, "acme.jsonl");
    await writeFile(path, result.stdout);
    const imported = await runCli(["import", "--workspace", "acme-only", path, "--json"], env);
    expect(imported.code, imported.stderr).toBe(0);
    const records = rows.filter((row) => row.kind === "record");
    expect(await holdings(["acme-only"])).toEqual({ "acme-only": records.length });
    // New records number after the whole source's counter, past every position a cursor of the
    // entity may hold, not after the entity's own newest record.
    const newest = Math.max(...records.map((row) => row.seq));
    expect(rows[0].workspace.last_seq).toBeGreaterThan(newest);
    const db = await open();
    try {
      const { rows: counter } = await db.query<{ last_seq: number }>(
        `SELECT c.last_seq FROM workspace_counters c JOIN workspaces w ON w.id = c.workspace_id
         WHERE w.name = 'acme-only'`,
      );
      expect(counter[0]?.last_seq).toBe(rows[0].workspace.last_seq);
    } finally {
      await release(db);
    }
  }, 60_000);
});
