// Expression indexes over declared fields (issue 20): a structured search sorted by a field, or
// a range on one, walks an index in order and stops at k instead of sorting every row in scope.
// Each is partial on its collection version and shared by the workspaces declaring the same
// field there; the queries repeat its expression and predicate (field-sql.ts).
//
// They live on the one records table every workspace writes, so a catalog must not be able to
// change it at will (docs/operations.md, "Field indexes"):
// - a catalog declares at most MAX_INDEXED_FIELDS indexed fields (check(), at publish and dry run);
// - no publish builds or drops one in its transaction: CREATE INDEX holds a ShareLock on records,
//   which stopped every workspace's writes until the publish committed. Once the install has
//   committed, sync() builds the indexes some active catalog needs and drops those none needs any
//   more: on a server CONCURRENTLY (writes go on throughout; an index the planner may use is a
//   valid one, so until it is built, or after a build failed, queries scan and stay correct), on
//   embedded storage in place, one statement at a time (its one connection takes turns anyway);
// - the worker reconciles on its clock (reconcileFieldIndexes) whatever a publish's sync could not
//   do: an import or a workspace deletion, a sync that found another process syncing, a failed
//   build (its invalid index is dropped and the build retried, backing off).
import {
  type CollectionDef,
  type FieldDecl,
  type FieldIndexes,
  type LoadedCatalog,
  loadCatalog,
} from "../catalog/index.js";
import type { Db, Queryable } from "../platform/db/index.js";
import { yieldTurn } from "../platform/event-loop.js";
import { sha256Hex } from "../platform/hash.js";
import {
  ACTIVE_CATALOG_HASHES,
  CATALOG_FILES,
  createFieldIndexSql,
  dropFieldIndexSql,
  FIELD_INDEX_PREFIX,
  FIELD_INDEXES,
  type IndexDirection,
  SYNC_UNLOCK,
  TRY_SYNC_LOCK,
} from "./field-sql.js";

interface FieldIndex {
  name: string;
  /** CREATE INDEX, CONCURRENTLY or in place. */
  ddl(concurrently: boolean): string;
}

function fieldIndex(def: CollectionDef, field: FieldDecl, direction: IndexDirection): FieldIndex {
  const id = [def.name, def.version, field.path, field.type, direction].join("\u0000");
  const name = `${FIELD_INDEX_PREFIX}${sha256Hex(id).slice(0, 24)}`;
  return {
    name,
    ddl: (concurrently) => createFieldIndexSql({ name, def, field, direction, concurrently }),
  };
}

/** The indexes one declaration calls for: both orders of a sortable field, one for a filter. */
function indexesOfField(def: CollectionDef, field: FieldDecl): FieldIndex[] {
  // List fields are matched by containment (?| and ?&), which a btree cannot answer; a datetime's
  // cast to timestamptz depends on the session's TimeZone, and an index expression must not.
  if (field.type === "string_array" || field.type === "datetime") return [];
  if (field.sort) return [fieldIndex(def, field, "DESC"), fieldIndex(def, field, "ASC")];
  return field.filter ? [fieldIndex(def, field, "DESC")] : [];
}

function indexesOf(def: CollectionDef): FieldIndex[] {
  return Object.values(def.fields).flatMap((field) => indexesOfField(def, field));
}

/**
 * Refuses a catalog whose listed collection versions declare more than `max` fields that get an
 * index, at the first field past the limit.
 */
function checkIndexedFields(catalog: LoadedCatalog, max: number): void {
  let count = 0;
  for (const { def, src } of catalog.index.collections.values()) {
    for (const [name, field] of Object.entries(def.fields)) {
      if (indexesOfField(def, field).length === 0) continue;
      count++;
      if (count > max) {
        src
          .at("fields")
          .at(name)
          .fail(
            `the catalog declares more than ${max} indexed fields (filter or sort, each collection version counted apart); MAX_INDEXED_FIELDS allows ${max}`,
          );
      }
    }
  }
}

/** What a sync did: index names built and dropped, and those whose build failed. */
export interface FieldIndexSync {
  built: string[];
  dropped: string[];
  failed: string[];
}

interface SyncState {
  /** The active catalogs the last pass saw (their hashes' digest). */
  seen?: string;
  /** Each catalog's indexes by its hash, or null when it no longer loads. */
  catalogs: Map<string, FieldIndex[] | null>;
  /** Builds that failed: when each may be tried again, and how many times it failed. */
  backoff: Map<string, { at: number; failures: number }>;
  /** The pass running in this process (PGlite's session lock is taken again by its one session). */
  running: Promise<unknown>;
}

const states = new WeakMap<Db, SyncState>();

function stateOf(db: Db): SyncState {
  let state = states.get(db);
  if (!state) {
    state = { catalogs: new Map(), backoff: new Map(), running: Promise.resolve() };
    states.set(db, state);
  }
  return state;
}

/** A failed build waits 10 s, doubling to an hour: each try scans the whole table. */
const RETRY_MIN_MS = 10_000;
const RETRY_MAX_MS = 3_600_000;

function catalogIndexes(catalog: LoadedCatalog): FieldIndex[] {
  return [...catalog.index.collections.values()].flatMap((entry) => indexesOf(entry.def));
}

async function activeHashes(db: Db): Promise<string[]> {
  return (await db.query<{ hash: string }>(ACTIVE_CATALOG_HASHES)).rows.map((row) => row.hash);
}

interface Wanted {
  digest: string;
  indexes: Map<string, FieldIndex>;
  /** False when some active catalog no longer loads: nothing may be dropped then. */
  complete: boolean;
}

/** The indexes the active catalogs of every workspace need. */
async function wantedIndexes(db: Db, state: SyncState): Promise<Wanted> {
  const hashes = await activeHashes(db);
  for (const hash of hashes) {
    if (state.catalogs.has(hash)) continue;
    const row = (await db.query<{ package: string; files: Record<string, string> }>(CATALOG_FILES, [hash]))
      .rows[0];
    if (!row) continue; // replaced since: the next pass sees its successor
    let indexes: FieldIndex[] | null = null;
    try {
      indexes = catalogIndexes(loadCatalog(row.files, row.package));
    } catch {
      // Published under rules it no longer meets: its indexes are unknown.
    }
    state.catalogs.set(hash, indexes);
  }
  const active = new Set(hashes);
  for (const hash of state.catalogs.keys()) if (!active.has(hash)) state.catalogs.delete(hash);
  const indexes = new Map<string, FieldIndex>();
  let complete = true;
  for (const hash of hashes) {
    const known = state.catalogs.get(hash);
    if (!known) complete = false;
    for (const index of known ?? []) indexes.set(index.name, index);
  }
  return { digest: sha256Hex(hashes.join(",")), indexes, complete };
}

/** One pass on the sync's own connection, holding the sync lock. */
async function pass(db: Db, conn: Queryable, state: SyncState): Promise<FieldIndexSync> {
  const concurrently = db.kind === "postgres";
  const drop = async (name: string) => {
    await yieldTurn();
    await conn.exec(dropFieldIndexSql(name, concurrently));
  };
  const wanted = await wantedIndexes(db, state);
  const result: FieldIndexSync = { built: [], dropped: [], failed: [] };
  for (const name of state.backoff.keys()) if (!wanted.indexes.has(name)) state.backoff.delete(name);
  const { rows: existing } = await conn.query<{ name: string; valid: boolean }>(FIELD_INDEXES);
  for (const index of existing) {
    // Valid and needed: kept. Invalid: a failed build (this pass holds the lock), dropped and,
    // when needed, built again. Valid and needed by no catalog: dropped, unless a catalog that
    // no longer loads might need it.
    if (index.valid && (wanted.indexes.has(index.name) || !wanted.complete)) {
      wanted.indexes.delete(index.name);
      continue;
    }
    await drop(index.name);
    result.dropped.push(index.name);
  }
  const now = Date.now();
  for (const index of wanted.indexes.values()) {
    const backoff = state.backoff.get(index.name);
    if (backoff && backoff.at > now) continue;
    try {
      await yieldTurn();
      await conn.exec(index.ddl(concurrently));
      state.backoff.delete(index.name);
      result.built.push(index.name);
    } catch {
      const failures = (backoff?.failures ?? 0) + 1;
      const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (failures - 1));
      state.backoff.set(index.name, { at: now + wait, failures });
      result.failed.push(index.name);
      // CONCURRENTLY leaves the failed build behind, invalid: every write would still maintain it.
      await drop(index.name);
    }
  }
  state.seen = wanted.digest;
  return result;
}

/**
 * Builds the field indexes some active catalog needs and drops the others, outside any
 * transaction; undefined when another process is syncing (the worker's next reconcile then sees
 * what this one would have). Passes in one process take turns.
 */
export function syncFieldIndexes(db: Db, installed?: LoadedCatalog): Promise<FieldIndexSync | undefined> {
  const state = stateOf(db);
  if (installed) state.catalogs.set(installed.catalogHash, catalogIndexes(installed));
  const run = state.running.then(() =>
    db.session(async (conn) => {
      const held = (await conn.query<{ held: boolean }>(TRY_SYNC_LOCK)).rows[0]?.held;
      if (!held) return undefined;
      try {
        return await pass(db, conn, state);
      } finally {
        // Embedded storage's session is its one lasting connection.
        await conn.query(SYNC_UNLOCK);
      }
    }),
  );
  state.running = run.catch(() => undefined);
  return run;
}

/**
 * The worker's periodic pass: a sync when the active catalogs changed since this process's
 * last pass, an index is invalid, or a failed build may be tried again; otherwise two cheap
 * reads. A build that still fails is reported (the worker logs it).
 */
export async function reconcileFieldIndexes(db: Db): Promise<FieldIndexSync | undefined> {
  const state = stateOf(db);
  const hashes = await activeHashes(db);
  const invalid = (await db.query<{ valid: boolean }>(FIELD_INDEXES)).rows.some((row) => !row.valid);
  const now = Date.now();
  const due = [...state.backoff.values()].some((backoff) => backoff.at <= now);
  if (!invalid && !due && state.seen === sha256Hex(hashes.join(","))) return undefined;
  const result = await syncFieldIndexes(db);
  if (result && result.failed.length > 0)
    throw new Error(`field index builds failed, retried later: ${result.failed.join(", ")}`);
  return result;
}

/** The catalog side of field indexes (CatalogDeps.fields). */
export function fieldIndexes(db: Db, options: { maxIndexedFields: number }): FieldIndexes {
  return {
    check: (catalog) => checkIndexedFields(catalog, options.maxIndexedFields),
    // The install has committed: a failed build fails this sync, not the publish, and the
    // worker's reconcile tries it again.
    sync: async (installed) => void (await syncFieldIndexes(db, installed).catch(() => undefined)),
  };
}
