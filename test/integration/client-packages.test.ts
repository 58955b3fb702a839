// The clients as another project gets them (docs/clients.md "Installing"): `npm pack` of each
// client package gives a tarball that a project outside this repository installs with npm and
// uses against a running Engram: the client reads the workspace, the LangGraph store puts and
// gets an item, the AI SDK adapter lists the workspace's tools. Packing and installing do not
// depend on the database, so the server suites leave this to the embedded one.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEngram, startEngram } from "../support/engram-serve.js";
import { catalogWithFragment } from "../support/langgraph-fragment.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);
const WORKSPACES = ["clients/typescript", "clients/langgraph", "clients/ai-sdk"];

const SCRIPT = `import { Engram } from "@engram/client";
import { EngramStore } from "@engram/langgraph";
import { engramTools } from "@engram/ai-sdk";

const engram = new Engram({ url: process.env.ENGRAM_API_URL, key: process.env.ENGRAM_API_KEY });
const workspace = await engram.workspace();
const store = new EngramStore({ engram });
await store.put(["memories", "alice"], "seat", { text: "prefers window seats" });
const item = await store.get(["memories", "alice"], "seat");
const memory = await engramTools(engram);
console.log(JSON.stringify({ workspace: workspace.name, value: item?.value, tools: Object.keys(memory.tools) }));
await memory.close();
`;

describe.skipIf(process.env.DATABASE_URL)("the packed client packages", { timeout: 180_000 }, () => {
  let server: RunningEngram;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-outside-"));
    server = await startEngram();
    // The store's collection, published the way its README says.
    const published = await fetch(`${server.url}/catalog`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
      body: JSON.stringify(await catalogWithFragment()),
    });
    expect(published.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("install from their tarballs into a project outside the repository and work there", async () => {
    const packs = join(dir, "packs");
    const project = join(dir, "project");
    await mkdir(packs);
    await run(
      "npm",
      // As built by the install (prepare): their prepack would rebuild dist/ under the feet of
      // other test files running the README's snippet against it.
      [
        "pack",
        "--ignore-scripts",
        ...WORKSPACES.flatMap((w) => ["--workspace", w]),
        "--pack-destination",
        packs,
      ],
      {
        cwd: ROOT,
      },
    );
    const tarballs = (await readdir(packs)).filter((name) => name.endsWith(".tgz")).sort();
    expect(tarballs).toEqual([
      "engram-ai-sdk-0.1.0.tgz",
      "engram-client-0.1.0.tgz",
      "engram-langgraph-0.1.0.tgz",
    ]);
    await mkdir(project);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "outside", private: true, type: "module" }),
    );
    // Their own dependencies and peers come from the registry (or npm's cache): nothing from here.
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", ...tarballs.map((t) => join(packs, t))],
      {
        cwd: project,
      },
    );
    await writeFile(join(project, "use.mjs"), SCRIPT);
    const { stdout } = await run(process.execPath, ["use.mjs"], {
      cwd: project,
      env: { ...process.env, ENGRAM_API_URL: server.url, ENGRAM_API_KEY: server.key, NODE_OPTIONS: "" },
    });
    const used = JSON.parse(stdout.trim().split("\n").at(-1) as string);
    expect(used.workspace).toBe("demo");
    expect(used.value).toEqual({ text: "prefers window seats" });
    expect(used.tools.length).toBeGreaterThan(0);
  });
});
