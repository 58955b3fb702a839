// Browser tests of the console: a real `engram serve` child (PGlite in a temporary directory, or
// a fresh database on DATABASE_URL's server), Debian's chromium driven by playwright-core, and a
// screenshot under test-results/console/ for every test that fails.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, onTestFailed } from "vitest";
import { createWorkspace, insertKey } from "../../src/workspaces/index.js";
import { type CliResult, cliStorage, collect, listening, startCli } from "../support/cli.js";
import { type Seeded, seed } from "./seed.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Whether this machine can run the browser tests. `npm test` on a machine without chromium skips
 * them with a warning (the quick start needs no browser); .ci/run sets CONSOLE_BROWSER=required,
 * where a missing chromium fails instead.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CONSOLE_BROWSER === "required") throw new Error(`no chromium at ${CHROMIUM}`);
  console.warn(`console browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium)`);
  return false;
}
export const SCREENSHOT_DIR = join(process.cwd(), "test-results", "console");

// The flags the machine's closed network needs (no background lookups) and root needs (no sandbox).
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface ApiAnswer {
  status: number;
  body: any;
}

export interface ConsoleServer {
  url: string;
  /** The key of the seeded "demo" workspace (the example package published). */
  key: string;
  /** The key of a second workspace, "other", created empty. */
  otherKey: string;
  /** A read-only key of "other", named viewer. */
  readOnlyKey: string;
  /** Calls the API as a client would (the demo key unless another is given). */
  api(method: string, path: string, body?: unknown, key?: string): Promise<ApiAnswer>;
  /** Everything the server printed on stderr so far (to check that no key is logged). */
  logs(): string;
  close(): Promise<void>;
}

/** Starts `engram serve` on a fresh store with the demo workspace and an empty "other" one. */
export async function startServer(options: { worker?: boolean } = {}): Promise<ConsoleServer> {
  const storage = await cliStorage();
  const env = { ...storage.env, LOG_LEVEL: "info" };
  // Made in this process, not by two more CLI children (seconds each): the CLI has its own tests.
  let otherKey: string;
  let readOnlyKey: string;
  const db = await storage.open();
  try {
    const other = await createWorkspace(db, "other");
    otherKey = other.api_key;
    const viewer = await insertKey(
      db,
      { id: other.id, name: other.workspace },
      { name: "viewer", scope: "read_only" },
    );
    readOnlyKey = viewer.api_key;
  } finally {
    await storage.release(db);
  }

  const args = ["serve", "--port", "0", "--demo", ...(options.worker === false ? ["--no-worker"] : [])];
  const child: ChildProcess = startCli(args, env);
  const exited: Promise<CliResult> = collect(child);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const ready = await listening(child);
  const key = /egk_[A-Za-z0-9_-]{43}/.exec(ready.stderr)?.[0];
  if (!key) throw new Error(`no demo key printed: ${ready.stderr}`);
  const url = ready.url;

  const api = async (method: string, path: string, body?: unknown, asKey = key): Promise<ApiAnswer> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${asKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  return {
    url,
    key,
    otherKey,
    readOnlyKey,
    api,
    logs: () => stderr,
    async close() {
      child.kill("SIGTERM");
      await exited;
      await storage.cleanup();
    },
  };
}

export interface ConsoleBrowser {
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/** Chromium at a laptop's 1280×800; every failed test of the file leaves a screenshot. */
export async function openBrowser(
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(10_000);
  return { browser, page, close: () => browser.close() };
}

/**
 * Saves a screenshot of `page` when the current test fails. Call it at the start of each test
 * (or in beforeEach).
 */
export function screenshotOnFailure(page: Page): void {
  onTestFailed(async ({ task }) => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const name = `${task.file?.name.split("/").pop() ?? "console"}-${task.name}`.replace(
      /[^A-Za-z0-9._-]+/g,
      "_",
    );
    await page
      .screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true })
      .catch(() => undefined);
  });
}

/** Whether the page fits its viewport's width (nothing scrolls sideways). */
export function noHorizontalScroll(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/** Signs in through the sign-in form and waits for the overview's workspace name. */
export async function signIn(
  page: Page,
  server: ConsoleServer,
  key = server.key,
  path = "/console",
): Promise<void> {
  await page.goto(`${server.url}${path}`);
  await page.getByLabel("Workspace key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Console" }).waitFor();
}

/** What a console suite's tests use; its fields are there once the suite's beforeAll has run. */
export interface ConsoleContext {
  readonly server: ConsoleServer;
  readonly browser: ConsoleBrowser;
  /** The browser's one page, shared by the file's tests. */
  readonly page: Page;
  /** What seed() made. */
  readonly seeded: Seeded;
}

export interface ConsoleSuiteOptions {
  /** Sign in with the demo key once the rest is ready (default); false leaves the sign-in to the tests. */
  signIn?: boolean;
  /** More for this file, after seed() and with the browser open, before the sign-in. */
  setup?: (context: ConsoleContext) => Promise<unknown>;
  /**
   * false: a server without its background worker and without seed() (queued work stays queued,
   * so a test can act on it); the demo workspace still has the example package.
   */
  worker?: boolean;
  /** Undoes what `setup` made outside the server, before the browser and server close. */
  teardown?: () => Promise<unknown>;
}

/**
 * One test file's suite (skipped without chromium): before its tests, a server with the seeded
 * workspace, a browser and (unless `signIn: false`) a signed-in page; a screenshot of every test
 * that fails; everything closed after. `body` declares the tests, which read `context` as they run.
 */
export function consoleSuite(
  name: string,
  options: ConsoleSuiteOptions,
  body: (context: ConsoleContext) => void,
): void {
  describe.runIf(browserAvailable())(name, () => {
    let server: ConsoleServer | undefined;
    let browser: ConsoleBrowser | undefined;
    let seeded: Seeded | undefined;
    const ready = <T>(value: T | undefined, what: string): T => {
      if (value === undefined)
        throw new Error(`the console suite's ${what} is not ready (did beforeAll fail?)`);
      return value;
    };
    const context: ConsoleContext = {
      get server() {
        return ready(server, "server");
      },
      get browser() {
        return ready(browser, "browser");
      },
      get page() {
        return ready(browser, "browser").page;
      },
      get seeded() {
        return ready(seeded, "seed");
      },
    };

    beforeAll(async () => {
      server = await startServer({ worker: options.worker });
      if (options.worker !== false) seeded = await seed(server);
      browser = await openBrowser();
      await options.setup?.(context);
      if (options.signIn !== false) await signIn(browser.page, server);
    }, 120_000);
    afterAll(async () => {
      await options.teardown?.();
      await browser?.close();
      await server?.close();
    });
    beforeEach(() => {
      if (browser) screenshotOnFailure(browser.page);
    });

    body(context);
  });
}
