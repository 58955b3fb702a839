// mcp-remote, the stdio bridge for hosts that take only stdio, authless or OAuth servers (Claude
// Desktop; docs/agents.md), between the official MCP client and a real `engram serve`, configured
// the way the docs say: the bearer header from an environment variable or from a headers file. It
// lists and calls the tools, never signs in nor stores credentials, and with a refused key it fails
// within seconds, naming the cause, instead of waiting for an OAuth sign-in.
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningEngram, startEngram } from "../support/engram-serve.js";
import { EXAMPLE_TOOLS } from "../support/mcp.js";

// The file `npx mcp-remote` runs (its package's bin), started with this Node: no npx, no network.
const MCP_REMOTE = (() => {
  const manifest = createRequire(import.meta.url).resolve("mcp-remote/package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  return join(dirname(manifest), bin["mcp-remote"] as string);
})();

// The docs' env form: mcp-remote itself expands ${AUTH_HEADER} from its environment.
// biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder for mcp-remote, not for JavaScript
const HEADER_FROM_ENV = ["--header", "Authorization:${AUTH_HEADER}"];

// A well-formed record id no record has.
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

let engram: RunningEngram;
// A home and an mcp-remote config directory of the test's own, fresh for every test: whatever
// mcp-remote would store (tokens, client registrations) lands there, never in the user's ~/.mcp-auth.
let home: string;
let configDir: string;
let bridges: StdioClientTransport[] = [];

beforeAll(async () => {
  engram = await startEngram();
});
afterAll(() => engram.stop());
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "engram-mcp-remote-"));
  configDir = join(home, ".mcp-auth");
  return async () => {
    // Stops mcp-remote even when a test failed before closing its client.
    await Promise.all(bridges.map((transport) => transport.close()));
    bridges = [];
    await rm(home, { recursive: true, force: true });
  };
});

interface McpRemote {
  transport: StdioClientTransport;
  /** What mcp-remote logged on stderr so far. */
  log(): string;
}

/** mcp-remote on stdio, with the `args` and `env` a host has from docs/agents.md. */
function mcpRemote(args: string[], env: Record<string, string> = {}): McpRemote {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_REMOTE, `${engram.url}/mcp`, "--transport", "http-only", ...args],
    env: { PATH: process.env.PATH ?? "", HOME: home, MCP_REMOTE_CONFIG_DIR: configDir, ...env },
    stderr: "pipe",
  });
  bridges.push(transport);
  let log = "";
  transport.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  return { transport, log: () => log };
}

async function connect({ transport }: McpRemote): Promise<Client> {
  const client = new Client({ name: "mcp-remote-test", version: "1" });
  await client.connect(transport);
  return client;
}

/** Every file mcp-remote left in its config directory (tokens, client registrations, locks). */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(configDir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe("with the key in the AUTH_HEADER variable (--header)", () => {
  it("lists the workspace's tools, writes with one and reads the record back with another", async () => {
    const bridge = mcpRemote(HEADER_FROM_ENV, {
      AUTH_HEADER: `Bearer ${engram.key}`,
    });
    const client = await connect(bridge);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(EXAMPLE_TOOLS);

      const text = "Called about a refund for order 1138, through mcp-remote";
      const written = await client.callTool({
        name: "log_event",
        arguments: {
          entity: "cust-bridge",
          type: "call",
          text,
          content: { channel: "phone", topic: "refund", priority: 2 },
          dedupe_key: "mcp-remote-call-1",
        },
      });
      expect(written.isError).toBeFalsy();
      const { id, duplicate } = written.structuredContent as { id: string; duplicate: boolean };
      expect(duplicate).toBe(false);

      const read = await client.callTool({ name: "get_record", arguments: { id } });
      expect(read.isError).toBeFalsy();
      expect(read.structuredContent).toMatchObject({
        id,
        entity: "cust-bridge",
        collection: "customer_events",
        type: "call",
        text,
        content: { channel: "phone", topic: "refund", priority: 2 },
      });
    } finally {
      await client.close();
    }
    expect(bridge.log()).not.toMatch(/OAuth callback server|Please authorize/);
    expect(await storedFiles()).toEqual([]);
  });
});

describe("with the key in a headers file (--header-file)", () => {
  it("lists and calls the tools, the key in neither the arguments nor the environment", async () => {
    const headers = join(home, "engram-headers.txt");
    await writeFile(headers, `# Engram workspace key\nAuthorization: Bearer ${engram.key}\n`, {
      mode: 0o600,
    });
    const client = await connect(mcpRemote(["--header-file", headers]));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(EXAMPLE_TOOLS);
      // An authorized call; the refusal comes back as a tool result, as it does over HTTP.
      const refused = await client.callTool({ name: "get_record", arguments: { id: MISSING_ID } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("not_found");
    } finally {
      await client.close();
    }
    expect(await storedFiles()).toEqual([]);
  });
});

describe("with a key Engram refuses", () => {
  // mcp-remote reads a 401 as an OAuth challenge. Engram answers its discovery and client
  // registration with 404s saying there is no authorization server, so it gives up at once; had
  // they been 401s, it would wait on a callback port for a sign-in that never comes.
  it("fails within seconds, its log naming the cause, without a sign-in or stored credentials", async () => {
    const bridge = mcpRemote(HEADER_FROM_ENV, {
      AUTH_HEADER: "Bearer egk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    });
    const started = Date.now();
    await expect(connect(bridge)).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(bridge.log()).toContain("Engram has no OAuth authorization server");
    expect(bridge.log()).not.toContain("Please authorize");
    expect(await storedFiles()).toEqual([]);
  }, 45_000);
});
