// Node-only helpers (file system): `@engram/client/node`. The core client stays runnable in browsers.
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { CallOptions, Engram } from "./engram.js";
import type { PublishResponse } from "./types.js";

/**
 * Reads every file under a catalog directory into the files map of POST /catalog, keyed by
 * relative path with forward slashes. Hidden files and folders (.git, editor swap files) are
 * skipped; every other file is sent, so the service refuses anything outside the layout.
 */
export async function readCatalogDirectory(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/");
    if (path.split("/").some((part) => part.startsWith("."))) continue;
    files[path] = await readFile(join(dir, path), "utf8");
  }
  return files;
}

/** Publishes a catalog directory, selecting `pkg` (name@semver) among its package manifests. */
export async function publishCatalogDirectory(
  engram: Engram,
  dir: string,
  pkg: string,
  options: CallOptions & { dryRun?: boolean } = {},
): Promise<PublishResponse> {
  return engram.catalog.publish({ package: pkg, files: await readCatalogDirectory(dir) }, options);
}
