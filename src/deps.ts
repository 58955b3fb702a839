// Wiring shared by the composition roots (main.ts, the HTTP app): how domain modules that
// must not import each other are connected.
import type { CatalogDeps } from "./catalog/index.js";
import type { Config } from "./config/index.js";
import type { Db } from "./platform/db/index.js";
import { storedContracts } from "./records/contracts.js";

export function catalogDeps(db: Db, config: Pick<Config, "additiveVerifyMaxRows">): CatalogDeps {
  return { db, stored: storedContracts, verifyMaxRows: config.additiveVerifyMaxRows };
}
