import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, cliEnv, collect, listening, runCli, startCli } from "../support/cli.js";
import { createTestDb, onServer, type TestDb } from "../support/db.js";
import { EXAMPLE_DIR } from "../support/example-catalog.js";
import { waitFor } from "../support/wait.js";

describe("engram serve (the quick start)", () => {
  let dir: string;
  let testDb: TestDb | undefined;
  let child: ChildProcess;
  let exited: Promise<CliResult>;
  let url: string;
  let demoKey: string;
  let env: NodeJS.ProcessEnv;
  let logged = "";
  let printed = "";
  let args: string[];
  let firstStderr = "";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-serve-"));
    args = ["serve", "--port", "0"];
    if (onServer) {
      testDb = await createTestDb();
      env = cliEnv({ DATABASE_URL: testDb.url as string, LOG_LEVEL: "info" });
      args.push("--demo");
    } else {
      env = cliEnv({ DATA_DIR: dir, LOG_LEVEL: "info" });
    }
    child = startCli(args, env);
    child.stderr?.on("data", (chunk) => {
      logged += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      printed += chunk;
    });
    const started = listening(child);
    exited = collect(child);
    const ready = await started;
    firstStderr = ready.stderr;
    url = ready.url;
    demoKey = /egk_[A-Za-z0-9_-]{43}/.exec(ready.stderr)?.[0] ?? "";
  });

  afterAll(async () => {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    await testDb?.close();
  });

  it("prints the demo key once on stderr", () => {
    expect(demoKey).toMatch(/^egk_/);
  });

  it("answers /health with ok and db", async () => {
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, db: true });
  });

  it("authenticates the demo key, whose workspace has the example package, and refuses a wrong one", async () => {
    const good = await fetch(`${url}/catalog`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(good.status).toBe(200);
    expect((await good.json()).package).toBe("support@1.0.0");
    const bad = await fetch(`${url}/catalog`, { headers: { authorization: "Bearer egk_wrong" } });
    expect(bad.status).toBe(401);
    expect((await bad.json()).code).toBe("unauthorized");
  });

  it("runs a worker: a record with required processors turns ready", async () => {
    const auth = { authorization: `Bearer ${demoKey}`, "content-type": "application/json" };
    const res = await fetch(`${url}/records`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        records: [{ collection: "customer_events", entity: "c1", type: "ticket", text: "hello" }],
      }),
    });
    const [inserted] = (await res.json()).inserted;
    expect(inserted.ready).toBe(false);
    await waitFor(
      async () => (await (await fetch(`${url}/records/${inserted.id}`, { headers: auth })).json()).ready,
    );
  });

  it("logs each request at info on stderr without its key, and prints nothing on stdout", async () => {
    const res = await fetch(`${url}/views`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(res.status).toBe(200);
    const line = await waitFor(async () => logged.split("\n").find((l) => l.includes('"url":"/views"')));
    expect(JSON.parse(line)).toMatchObject({ req: { method: "GET", url: "/views" } });
    // A key sent in a URL is logged as its prefix only (and over HTTP revokes nothing).
    const revoke = await fetch(`${url}/keys/${demoKey}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${demoKey}` },
    });
    expect(revoke.status).toBe(404);
    const cut = `/keys/${demoKey.slice(0, 12)}…`;
    await waitFor(async () => logged.includes(cut));
    // stderr holds the log lines and, once, the demo key's banner: no log line holds a key.
    const logLines = logged
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .join("\n");
    expect(logLines).toContain('"url":"/views"');
    expect(logLines).not.toContain(demoKey);
    expect(logLines.toLowerCase()).not.toContain("authorization");
    expect(printed).toBe("");
  });

  it("logs an expected refusal (502 answer_model) as a warning with its code, without a stack", async () => {
    const res = await fetch(`${url}/answer`, {
      method: "POST",
      headers: { authorization: `Bearer ${demoKey}`, "content-type": "application/json" },
      body: JSON.stringify({ question: "What does acme want?" }),
    });
    expect(res.status).toBe(502);
    const line = await waitFor(async () => logged.split("\n").find((l) => l.includes('"request refused"')));
    expect(JSON.parse(line)).toMatchObject({ level: 40, code: "answer_model" });
    expect(line).not.toContain("stack");
  });

  it("engram catalog publish uploads a directory through the API", async () => {
    const client = { ...env, ENGRAM_API_URL: url, ENGRAM_API_KEY: demoKey };
    const dry = await runCli(
      ["catalog", "publish", EXAMPLE_DIR, "--package", "support@1.0.0", "--dry-run"],
      client,
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ verdict: "invisible", publishable: true });
    // The directory holds one manifest: --package may be left out.
    const only = await runCli(["catalog", "publish", EXAMPLE_DIR, "--dry-run"], client);
    expect(only.code, only.stderr).toBe(0);
    expect(JSON.parse(only.stdout)).toMatchObject({ verdict: "invisible", publishable: true });
    const real = await runCli(["catalog", "publish", EXAMPLE_DIR, "--package", "support@1.0.0"], client);
    expect(JSON.parse(real.stdout)).toMatchObject({ package: "support@1.0.0", loaded: true });
    const refused = await runCli(["catalog", "publish", EXAMPLE_DIR, "--package", "support@9.9.9"], client);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("package_not_found");
  });

  it.skipIf(onServer)("holds the data directory: an operator command fails naming the pid", async () => {
    const result = await runCli(["workspace", "list"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`in use by process ${child.pid}`);
  });

  it("refuses a busy port in one line naming the address, without a stack", async () => {
    const port = new URL(url).port;
    const second = await runCli(["serve", "--port", port, "--no-demo"], cliEnv({ DATA_DIR: "memory://" }));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `engram: invalid PORT: 127.0.0.1:${port} is already in use by another process`,
    );
    expect(second.stderr).not.toMatch(/\n\s+at /);
  });

  it("shuts down on SIGTERM and releases the data directory", async () => {
    child.kill("SIGTERM");
    const result = await exited;
    expect(result.code).toBe(0);
    expect(existsSync(join(dir, "engram.lock"))).toBe(false);
  });

  it("does not create the demo workspace again on the next start", async () => {
    // The same storage and arguments again (the server run asks for the demo with --demo).
    const again = startCli(args, env);
    const secondExit = collect(again);
    try {
      const second = await listening(again);
      const created = /Created the "demo" workspace/;
      expect(firstStderr).toMatch(created);
      expect(second.stderr).not.toMatch(created);
      expect(second.stderr).not.toMatch(/egk_/);
      // The first start's key still opens the one demo workspace, with its package.
      const res = await fetch(`${second.url}/catalog`, { headers: { authorization: `Bearer ${demoKey}` } });
      expect(res.status).toBe(200);
      expect((await res.json()).package).toBe("support@1.0.0");
    } finally {
      again.kill("SIGTERM");
    }
    expect((await secondExit).code).toBe(0);
    const listed = await runCli(["workspace", "list", "--json"], env);
    expect(JSON.parse(listed.stdout).map((w: { workspace: string }) => w.workspace)).toEqual(["demo"]);
  });
});
