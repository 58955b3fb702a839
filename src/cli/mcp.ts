import { Command } from "commander";
import type { ApiTarget } from "../mcp/index.js";
import { apiTarget } from "./catalog.js";
import { CliError } from "./run.js";

interface ToolsEnvelope {
  package: { name: string; version: string };
  interface: { name: string; version: number } | null;
  tools: { name: string; kind: string; binding: { reference: string | null } }[];
}

/** GET /tools with the key: proves the URL and key work, without opening an MCP connection. */
async function check({ url, key }: ApiTarget): Promise<string> {
  const response = await fetch(`${url}/tools`, { headers: { authorization: `Bearer ${key}` } }).catch(
    (error: Error) => {
      throw new CliError(`cannot reach ${url}: ${error.message}`);
    },
  );
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new CliError(
      `GET ${url}/tools answered ${response.status}: ${problem.detail ?? response.statusText}`,
    );
  }
  const body = (await response.json()) as ToolsEnvelope;
  const { SUPPORTED_REVISIONS } = await import("../mcp/index.js");
  const mcp = body.interface;
  return [
    `api: ${url}`,
    `package: ${body.package.name}@${body.package.version}`,
    `interface: ${mcp ? `${mcp.name}@${mcp.version}` : "none"}`,
    `tools (${body.tools.length}):`,
    ...body.tools.map(
      (t) => `  ${t.name} (${t.kind}${t.binding.reference ? ` ${t.binding.reference}` : ""})`,
    ),
    `protocol revisions: ${SUPPORTED_REVISIONS.join(", ")}`,
  ].join("\n");
}

export function mcpCommand(): Command {
  return new Command("mcp")
    .description("stdio MCP adapter over the HTTP API (ENGRAM_API_URL, ENGRAM_API_KEY)")
    .option("--check", "authenticate against GET /tools, print package, interface, tools and revisions, exit")
    .action(async (options: { check?: boolean }) => {
      const target = apiTarget();
      if (options.check) {
        process.stdout.write(`${await check(target)}\n`);
        return;
      }
      // Loaded here: the MCP SDK is what no other command needs.
      const { serveStdioAdapter } = await import("../mcp/index.js");
      await serveStdioAdapter(target, (message) => process.stderr.write(`${message}\n`)).catch((error) => {
        throw error instanceof CliError
          ? error
          : new CliError(
              `cannot serve MCP from ${target.url}/mcp: ${(error as Error).message} (is Engram running there? ENGRAM_API_URL sets the address)`,
            );
      });
    });
}
