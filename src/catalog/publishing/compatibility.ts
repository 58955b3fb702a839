// Compatibility of a catalog with the records stored under it. A record keeps the collection
// contract (contractHash) it was written under; a new catalog may not reinterpret it.
//   invisible       the stored contract is unchanged, or no longer listed (records keep it)
//   additive        the contract changed but every stored record still satisfies it and no
//                   declared field changed meaning: records move forward to the new contract
//   reinterpreting  anything else: refused with 409 catalog_incompatible
import type { Queryable } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { compileSchema } from "../../platform/schema.js";
import { type CollectionDef, typeProblem } from "../definition/index.js";
import { fieldValue } from "../families/index.js";
import type { LoadedCatalog } from "./load.js";

export type Verdict = "invisible" | "additive" | "reinterpreting";

export interface ContractUsage {
  collection: string;
  version: number;
  hash: string;
  count: number;
}

/** What the catalog needs to know of stored records; the records module provides it. */
export interface StoredContracts {
  /** Blocks record writes of the workspace until the transaction ends. */
  lockWrites(tx: Queryable, workspaceId: string): Promise<void>;
  usage(tx: Queryable, workspaceId: string): Promise<ContractUsage[]>;
  contents(
    tx: Queryable,
    workspaceId: string,
    group: ContractUsage,
    limit: number,
  ): Promise<Record<string, unknown>[]>;
  moveForward(tx: Queryable, workspaceId: string, group: ContractUsage, toHash: string): Promise<number>;
  /** Ready records of these collections that have no vector in the embedding space. */
  missingVectors(tx: Queryable, workspaceId: string, collections: string[], space: string): Promise<number>;
}

export interface Blocker {
  records: { collection: string; version: number; contract_hash: string; count: number };
  reason: string;
  action: string;
}

export interface CompatibilityReport {
  verdict: Verdict;
  publishable: boolean;
  blockers: Blocker[];
  changes: { collection: string; version: number; count: number; verdict: Verdict; reason: string }[];
}

export interface Assessment {
  report: CompatibilityReport;
  /** Groups of records whose contract hash moves forward when the catalog is installed. */
  moves: { group: ContractUsage; toHash: string }[];
}

const RANK: Record<Verdict, number> = { invisible: 0, additive: 1, reinterpreting: 2 };

/** Structural changes that reinterpret stored content whatever it holds. */
function structuralProblem(before: CollectionDef, after: CollectionDef): string | undefined {
  if (before.mode !== after.mode) return `mode changes from ${before.mode} to ${after.mode}`;
  for (const [name, field] of Object.entries(before.fields)) {
    const next = after.fields[name];
    if (!next) return `declared field "${name}" is removed`;
    if (next.path !== field.path || next.type !== field.type)
      return `declared field "${name}" changes path or type`;
  }
  return undefined;
}

/** Checks every stored record of a group against the new contract. */
async function verify(
  tx: Queryable,
  workspaceId: string,
  stored: StoredContracts,
  group: ContractUsage,
  after: CollectionDef,
  maxRows: number,
): Promise<string | undefined> {
  if (group.count > maxRows) {
    return `${group.count} stored records exceed ADDITIVE_VERIFY_MAX_ROWS (${maxRows}), so the change cannot be verified`;
  }
  const validate = compileSchema(after.schema);
  for (const content of await stored.contents(tx, workspaceId, group, maxRows)) {
    if (!validate(content)) return "stored records do not satisfy the new schema";
    for (const [name, field] of Object.entries(after.fields)) {
      const value = fieldValue(content, field.path);
      if (value !== undefined && value !== null && typeProblem(field.type, value)) {
        return `stored values at "${field.path}" do not fit declared field "${name}" (${field.type})`;
      }
    }
  }
  return undefined;
}

/**
 * Compares the stored records' contracts with a catalog. `current` is the installed catalog
 * (undefined before the first publish): it supplies the definition each stored hash came from.
 */
export async function assessCompatibility(
  tx: Queryable,
  workspaceId: string,
  stored: StoredContracts,
  next: LoadedCatalog,
  current: LoadedCatalog | undefined,
  verifyMaxRows: number,
): Promise<Assessment> {
  const report: CompatibilityReport = { verdict: "invisible", publishable: true, blockers: [], changes: [] };
  const moves: Assessment["moves"] = [];
  for (const group of await stored.usage(tx, workspaceId)) {
    const id = `${group.collection}@${group.version}`;
    const toHash = next.contracts[id];
    const after = next.index.collections.get(id)?.def;
    if (toHash === undefined || toHash === group.hash || !after) continue;
    const before = current?.contracts[id] === group.hash ? current.index.collections.get(id)?.def : undefined;
    const problem =
      (before && structuralProblem(before, after)) ??
      (await verify(tx, workspaceId, stored, group, after, verifyMaxRows));
    const verdict: Verdict = problem ? "reinterpreting" : "additive";
    report.changes.push({
      collection: group.collection,
      version: group.version,
      count: group.count,
      verdict,
      reason: problem ?? "every stored record satisfies the new contract",
    });
    if (RANK[verdict] > RANK[report.verdict]) report.verdict = verdict;
    if (problem) {
      report.blockers.push({
        records: {
          collection: group.collection,
          version: group.version,
          contract_hash: group.hash,
          count: group.count,
        },
        reason: problem,
        action: `keep ${id} unchanged and ship the new contract as ${group.collection}@${group.version + 1} alongside it`,
      });
    } else {
      moves.push({ group, toHash });
    }
  }
  report.publishable = report.blockers.length === 0;
  return { report, moves };
}

/** The embedding space a search profile searches, or null when it has no embedding alias. */
function profileSpace(catalog: LoadedCatalog, profile: string): string | null {
  const alias = catalog.index.searchProfiles.get(profile)?.def.embedding;
  const def = alias ? catalog.index.models.def.aliases[alias] : undefined;
  return def?.kind === "embedding" ? def.space : null;
}

/**
 * Embedding-space cut-over: a profile may only switch to a new space once every ready record it
 * indexes has a vector there (staged by an embedding processor of the new alias and a backfill).
 * Throws 409 incomplete_space naming what is missing.
 */
export async function checkSpaceCutover(
  tx: Queryable,
  workspaceId: string,
  stored: StoredContracts,
  next: LoadedCatalog,
  current: LoadedCatalog | undefined,
): Promise<void> {
  if (!current) return;
  for (const [name] of next.index.searchProfiles) {
    const space = profileSpace(next, name);
    if (space === null || !current.index.searchProfiles.has(name) || profileSpace(current, name) === space)
      continue;
    const collections = [
      ...new Set(
        [...next.index.collections.values()]
          .filter((e) => e.def.search_profile === name)
          .map((e) => e.def.name),
      ),
    ];
    const missing = await stored.missingVectors(tx, workspaceId, collections, space);
    if (missing > 0) {
      throw new AppError(
        "incomplete_space",
        `search profile "${name}" cannot cut over to embedding space "${space}": ${missing} ready records have no vector there yet; stage them with an embedding processor of the new alias and POST /backfill`,
        { profile: name, space, missing },
      );
    }
  }
}
