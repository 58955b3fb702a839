import { loadConfig } from "../../src/config/index.js";
import type { VectorLayout } from "../../src/platform/db/index.js";

/** The same server URL pointing at another database. */
export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * The layout the server run asks for (VECTOR_LAYOUT, as `engram serve` reads it): `exact` runs
 * the suite on real[] columns even where the server has pgvector. Refused without DATABASE_URL.
 */
export function testVectorLayout(): VectorLayout {
  return loadConfig({ DATABASE_URL: process.env.DATABASE_URL, VECTOR_LAYOUT: process.env.VECTOR_LAYOUT })
    .vectorLayout;
}
