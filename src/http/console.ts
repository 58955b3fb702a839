import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError } from "../platform/errors.js";

/** The console's sources: browser TypeScript under console/, bundled here, never fetched from a CDN. */
const CONSOLE_DIR = fileURLToPath(new URL("../../console/", import.meta.url));

// No inline script or style anywhere in the console, so the policy can stay this strict.
// Exported for the reference page at /docs, which shares the origin (src/http/openapi.ts).
export const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Engram console</title>
<link rel="icon" href="/console/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js"></script>
</head>
<body><div id="app"></div></body>
</html>
`;

interface Assets {
  js: string;
  css: string;
}

/**
 * The bundle is built in the serving process on first use (esbuild, tens of milliseconds) rather
 * than by an install or build step: `npm install && npm start` then serves it with nothing else
 * to run (npm may skip install scripts), and what is served always matches the sources.
 */
let assets: Promise<Assets> | undefined;

export function consoleAssets(): Promise<Assets> {
  assets ??= build({
    entryPoints: { console: `${CONSOLE_DIR}src/main.tsx` },
    bundle: true,
    write: false,
    outdir: "/console-out",
    format: "esm",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    logLevel: "silent",
    loader: { ".css": "css" },
  }).then((result) => {
    const text = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? "";
    return { js: text(".js"), css: text(".css") };
  });
  return assets;
}

function secure(reply: FastifyReply): FastifyReply {
  return reply.headers(SECURITY_HEADERS).header("cache-control", "no-cache");
}

/** GET /console and every deep link below it: one page; the browser routes (console/src/router.ts). */
export function consoleRoutes(app: FastifyInstance): void {
  const schema = { hide: true };
  app.get("/console/assets/console.js", { schema }, async (_request, reply) =>
    secure(reply)
      .type("text/javascript; charset=utf-8")
      .send((await consoleAssets()).js),
  );
  app.get("/console/assets/console.css", { schema }, async (_request, reply) =>
    secure(reply)
      .type("text/css; charset=utf-8")
      .send((await consoleAssets()).css),
  );
  app.get("/console/assets/icon.svg", { schema }, async (_request, reply) =>
    secure(reply)
      .type("image/svg+xml")
      .send(await readFile(`${CONSOLE_DIR}icon.svg`)),
  );
  app.get("/console/assets/*", { schema }, async (request) => {
    throw new AppError("not_found", `no console asset ${request.url.split("?")[0]}`);
  });
  const page = async (_request: unknown, reply: FastifyReply) =>
    secure(reply).type("text/html; charset=utf-8").send(PAGE);
  app.get("/console", { schema }, page);
  app.get("/console/*", { schema }, page);
}
