// Candidate proposal per mode, up to params.candidates, each with the signals its mode has.
import type { CollectionDef, InstalledCatalog, SearchPart } from "../catalog/index.js";
import type { Db } from "../platform/db/index.js";
import { fewVectors, spaceReads, vectorLiteral } from "../records/index.js";
import { lexemeQuery, type TextRanker, termRank, textRanker } from "./bm25.js";
import {
  ALL_RECORDS,
  embeddingJoinSql,
  entityHybridSql,
  entityRecordsSql,
  exactVectorSql,
  NO_SIMILARITY,
  nearestFromSql,
  nearestSql,
  orderValuesSql,
  type QueryVector,
  recentSql,
  seedRowsSql,
  similarityColumnSql,
  similaritySql,
  structuredSql,
  textMatchColumnSql,
  textProposalSql,
  walkWithTailSql,
} from "./candidates-sql.js";
import { fieldValueSql } from "./field-sql.js";
import { firstListDepth, interleave, interleaveByNeed } from "./interleave.js";
import {
  candidateColumns,
  candidateRows,
  declarationOf,
  filterSql,
  orderSql,
  Params,
  routeFilter,
  textMatches,
  textTerms,
  tsQuerySql,
} from "./sql.js";
import { textMatchSql } from "./text-rank-sql.js";
import { walkTextCandidates } from "./text-walk.js";
import type { Candidate } from "./types.js";

/** A candidate list of a proposal (explain's proposed_by). */
export type ProposalList = "vector" | "text" | "recent" | "structured";

/** Hybrid's lists, in their round-robin order. */
const HYBRID_LIST_NAMES: readonly ProposalList[] = ["vector", "text", "recent"];

export interface Proposal {
  candidates: Candidate[];
  /** Candidates proposed before cutting to k (backend diagnostics). */
  count: number;
  /**
   * With explain, hybrid: the lists whose round-robin turn offered each candidate. Other modes
   * have one list, named by the mode.
   */
  proposedBy?: Map<string, ProposalList[]>;
}

function declarations(catalog: InstalledCatalog): Map<string, CollectionDef> {
  return new Map([...catalog.index.collections].map(([id, entry]) => [id, entry.def]));
}

/**
 * Runs a proposal. `repeated`: its text recurs with other values and planning is a large share of
 * its cost on PGlite (Db.queryRepeated): the vector and recency lists, whose plans the ORDER BY
 * fixes, and the text reads fenced to one index (textCandidates). Not the text tiers, which ran
 * 25% slower on a generic plan (bench/notes/pglite.md).
 */
function run(db: Db, statement: { sql: string; params: Params; repeated?: boolean }): Promise<Candidate[]> {
  return candidateRows(db, {
    sql: statement.sql,
    values: statement.params.values,
    repeated: statement.repeated ?? false,
  });
}

export interface ProposeInput {
  db: Db;
  workspaceId: string;
  catalog: InstalledCatalog;
  part: SearchPart;
  q: string | undefined;
  query: QueryVector | undefined;
  /** Score every text match (src/search/text-walk.ts says when the cells do not). */
  exhaustiveText: boolean;
  /** A workspace holding at most this many vectors of the space scans them exactly (VECTOR_EXACT_ROWS). */
  vectorExactRows: number;
  /** The query's text rank (textRanker), when already read; else each text statement reads it. */
  ranker?: TextRanker;
  /** The rank reads age_hours(last_accessed): candidates carry it (else null). */
  lastAccessed?: boolean;
  /**
   * The search explains its hits: hybrid notes the lists that offered each candidate, structured
   * reads its order_by values (Candidate.order_values).
   */
  explain?: boolean;
}

function profileOf(input: ProposeInput) {
  return input.catalog.index.searchProfiles.get(input.part.profile)?.def;
}

function textConfig(input: ProposeInput): string {
  return profileOf(input)?.text_config ?? "english";
}

/** The search part's text rank, read once per search (propose). */
async function rankerOf(input: ProposeInput): Promise<TextRanker> {
  return (
    input.ranker ??
    textRanker(input.db, {
      workspaceId: input.workspaceId,
      catalog: input.catalog,
      profile: profileOf(input),
      terms: textTerms(input.q ?? ""),
    })
  );
}

/**
 * A term whose records number at most this many times the pool is rare: every record holding it
 * is read outright, so it adds nothing to the bound on the records left out (text-walk.ts).
 */
const RARE_POOL_SHARE = 10;

/** The statement's workspace parameter where candidates read last_accessed (candidateColumns). */
function accessOf(input: ProposeInput, params: Params): string | undefined {
  return input.lastAccessed ? params.workspace(input.workspaceId) : undefined;
}

/** Text proposals, best text_match first (also the bench's recall measure, bench/recall.ts). */
export async function textCandidates(
  input: ProposeInput,
  limit: number,
  missing: Missing = {},
): Promise<Candidate[]> {
  const config = textConfig(input);
  const q = input.q ?? "";
  const terms = textTerms(q);
  // No wanted term (only exclusions, or none): tsQuerySql has no query and nothing matches.
  if (!terms.some((term) => !term.negate)) return [];
  const ranker = await rankerOf(input);
  // The parameters, tsquery and filters of one statement (the walk issues a few).
  const base = () => {
    const params = new Params();
    const tsq = tsQuerySql(params, config, q) as string;
    const where = filterSql(params, {
      workspaceId: input.workspaceId,
      part: input.part,
      declarations: declarations(input.catalog),
    });
    return { params, tsq, where, columns: missingSignalsSql(input, params, { missing, ranker }) };
  };
  const entities = input.part.scope.entities;
  // One entity's matches are few and its rows are read through the entity index; the cells are
  // workspace-wide, so they serve searches not scoped by entity, ranked by BM25.
  const rare = (df: number) => df <= RARE_POOL_SHARE * limit;
  const bm25 = ranker.kind === "bm25" ? ranker : undefined;
  const common = bm25?.terms.filter((t) => t.lexeme !== undefined && !rare(t.df)) ?? [];
  const walkable =
    bm25 !== undefined &&
    !input.exhaustiveText &&
    !entities &&
    common.length > 0 &&
    bm25.terms.every((t) => t.phrase === undefined || rare(t.df));
  if (walkable) {
    const rareTerms = bm25.terms.filter((t) => !common.includes(t));
    return walkTextCandidates({
      db: input.db,
      select: (params) => candidateColumns(accessOf(input, params)),
      workspaceId: input.workspaceId,
      rank: bm25,
      common: common.map((t) => ({ lexeme: t.lexeme as string, idf: t.idf })),
      rare:
        rareTerms.length > 0
          ? rareTerms
              .map((t) => (t.phrase ? `(${t.phrase.query})` : lexemeQuery(t.lexeme as string)))
              .join(" | ")
          : undefined,
      // A cell's record holds a wanted lexeme, so it matches unless a term excludes it or needs
      // more lexemes than that one.
      check: terms.some((term) => term.negate) || bm25.compound,
      limit,
      exact: input.part.k,
      base,
    });
  }
  const { params, tsq, where, columns } = base();
  // The planner cannot see the tsquery (the statement builds it), so it guesses every word
  // rare. Each read is fenced (OFFSET 0) to the index that suits it: an entity's records through
  // the entity index (ANDing in the full-text bitmap of a common word read 40k entries for an
  // entity's 15 records: 0.2 -> 4.3 ms); every term rare (by the workspace's statistics, so
  // its matches are few) through the full-text index alone (ANDing in the bitmap of the
  // workspace's every record cost half the statement at 100k records). The matches of common
  // words are left to the planner: ANDing in a filter's bitmap spares heap reads of most of them.
  const everyTermRare = bm25?.terms.every((t) => rare(t.df)) === true;
  const matches = entities
    ? entityRecordsSql(params, input.workspaceId, entities)
    : everyTermRare
      ? textMatches(routeFilter(params, { db: input.db, workspaceId: input.workspaceId, alias: "t" }))
      : ALL_RECORDS;
  return run(input.db, {
    sql: textProposalSql({
      select: candidateColumns(accessOf(input, params)),
      textMatch: textMatchSql(params, ranker, "q.tsq"),
      signals: columns,
      tsq,
      matches,
      where,
      limit: params.add(limit),
    }),
    params,
    // A fenced read's plan is its index's, whatever the values (bench/notes/pglite.md).
    repeated: entities !== undefined || everyTermRare,
  });
}

/** Vector proposals, nearest first (also the bench's vector recall measure, bench/vector-recall.ts). */
export async function vectorCandidates(
  input: ProposeInput,
  limit: number,
  missing: Missing = {},
): Promise<Candidate[]> {
  if (!input.query) return [];
  const ranker = missing.text_match ? await rankerOf(input) : undefined;
  // An entity-scoped search reads few rows: an exact scan over them is faster than an HNSW walk
  // that must pass many other entities' neighbours (and may stop at hnsw.max_scan_tuples before
  // finding them all), so only searches not scoped by entity use the index, and only in a
  // workspace with more vectors than vectorExactRows (spaceReads).
  const { space, vector } = input.query;
  const reads =
    input.db.hasVector && !input.part.scope.entities
      ? await spaceReads(input.db, {
          alias: "e",
          workspaceId: input.workspaceId,
          space,
          dimensions: vector.length,
          exactRows: input.vectorExactRows,
        })
      : undefined;
  if (!reads) return exactVectorCandidates(input, { limit, missing, ranker });
  // One statement's nearest rows among `rows` of embeddings e, by the indexed expression (the
  // walk: the join repeats the index predicate, src/records/embedding-index.ts; filters are
  // checked on each neighbour as the iterative scan yields it) or by the stored vector (exact).
  const statement = (params: Params) => {
    const where = filterSql(params, {
      workspaceId: input.workspaceId,
      part: input.part,
      declarations: declarations(input.catalog),
    });
    const signals = missingSignalsSql(input, params, { missing, ranker });
    const query = params.add(vectorLiteral(vector));
    const lim = params.add(limit);
    const workspace = params.workspace(input.workspaceId);
    // `leads`: rows holds leads alone (a walk's), each expanded to the records holding its vector.
    const nearest = (rows: string, read: { exact: boolean; leads: boolean }) =>
      nearestSql({
        select: candidateColumns(accessOf(input, params)),
        signals,
        from: nearestFromSql({
          rows,
          where,
          workspace,
          ...(read.leads ? { copies: reads.withCopies(workspace) } : {}),
        }),
        query,
        limit: lim,
        ...(read.exact ? {} : { index: reads }),
      });
    return { nearest, lim };
  };
  const walk = () => {
    const params = new Params();
    const { nearest, lim } = statement(params);
    // Deferred embeddings not yet in the index (an enrichment backlog's, src/records/vector-seal.ts)
    // are scanned exactly, so a record is found from the moment it is ready.
    const indexed = nearest(reads.indexed, { exact: false, leads: true });
    const sql = reads.tail
      ? walkWithTailSql(indexed, nearest(reads.tail, { exact: true, leads: true }), lim)
      : indexed;
    return run(input.db, { sql, params, repeated: true });
  };
  // Hybrid's text list proposes its query's best matches already, each with its similarity: the
  // seeds added 0.003 to its pool's share of the exact top 20 at 1M and 72% to its p50.
  const [walked, seeds] = await Promise.all([walk(), missing.text_match ? [] : vectorSeeds(input)]);
  if (await shortWalk(input, walked, limit)) return exactVectorCandidates(input, { limit, missing, ranker });
  const known = new Set(walked.map((row) => row.id));
  const unseen = seeds.filter((id) => !known.has(id));
  let scored: Candidate[] = [];
  if (unseen.length > 0) {
    const params = new Params();
    const { nearest } = statement(params);
    const rows = seedRowsSql(params, space, unseen);
    // A zero vector has no cosine (NaN; HNSW leaves such vectors out): not a neighbour.
    scored = (await run(input.db, { sql: nearest(rows, { exact: true, leads: false }), params })).filter(
      (row) => !Number.isNaN(Number(row.similarity)),
    );
  }
  return [...walked, ...scored]
    .sort((a, b) => Number(b.similarity) - Number(a.similarity) || Number(b.seq) - Number(a.seq))
    .slice(0, limit);
}

/** A similarity this close to 1: the record's vector is the query's own. */
const IDENTICAL = 1 - 1e-6;

/**
 * The most vectors of a space a workspace may hold for a short walk to be finished exactly: the
 * scan of a 100k-vector workspace took 140-200 ms on the bench's 2-core server, of a 1M one
 * 0.7-1.1 s, and 5 s under load for a search filtered to one collection.
 */
const SHORT_WALK_EXACT_ROWS = 200_000;

/**
 * Whether a walk came back short, uncertified, in a workspace small enough to scan exactly. A
 * short walk found fewer neighbours passing the search's filters than it asked for, in a
 * workspace holding more vectors than vectorExactRows: the filters leave fewer rows than that
 * (scanning them exactly costs about what the walk did), or the walk stopped before reaching
 * them: pgvector's iterative scan ends at hnsw.max_scan_tuples, and a cluster of identical
 * vectors may link only to itself, so a walk that enters it finds nothing beyond (docs/scaling.md
 * "Vector search among tenants"). A short walk holding k records identical to the query (each as
 * similar as any can be) has the search's best already, and past SHORT_WALK_EXACT_ROWS vectors
 * the scan would cost more than a search may: both stand as walked.
 */
async function shortWalk(input: ProposeInput, walked: Candidate[], limit: number): Promise<boolean> {
  if (walked.length >= limit) return false;
  const identical = walked.filter((row) => Number(row.similarity) >= IDENTICAL).length;
  if (identical >= Math.min(input.part.k, limit) || !input.query) return false;
  return fewVectors(input.db, {
    workspaceId: input.workspaceId,
    space: input.query.space,
    most: SHORT_WALK_EXACT_ROWS,
  });
}

/**
 * Terms whose records are at most this share of the workspace's searchable records seed the
 * vector list (vectorSeeds); a common word's records crowd the graph, where the walk finds them.
 */
const SEED_TERM_SHARE = 0.05;
/** How many of each seeding term's best text matches the vector list scores exactly. */
const SEED_DEPTH = 50;
/** The rarest this many terms seed it (a query may hold 64). */
const MAX_SEED_TERMS = 4;

/**
 * Records the vector list scores exactly beside its HNSW walk: the best text matches of each of
 * the query's less common terms. A query apart from the bulk of the corpus (one rare word) lies
 * apart from the graph's paths too, and the walk misses records nearest to it, which hold its
 * words and rank high among their matches (bench/RESULTS.md, "Vector search among tenants":
 * at 1M records the worst of 82 such searches found 0.3 of its exact top 20, with seeds 0.85).
 */
async function vectorSeeds(input: ProposeInput): Promise<string[]> {
  const wanted = textTerms(input.q ?? "").filter((term) => !term.negate);
  // One read of the statistics for every term: each term's ranker is the query's, cut to it.
  const ranker = await rankerOf(input);
  if (ranker.kind !== "bm25") return [];
  const seeding = wanted
    .flatMap((term, i) => {
      const rank = termRank(ranker, i);
      const df = Math.min(...rank.terms.map((t) => t.df).filter((df) => df > 0));
      return df <= SEED_TERM_SHARE * ranker.n ? [{ term, rank, df }] : [];
    })
    .sort((a, b) => a.df - b.df)
    .slice(0, MAX_SEED_TERMS);
  const lists = await Promise.all(
    seeding.map(({ term, rank }) =>
      textCandidates({ ...input, q: term.phrase ? `"${term.text}"` : term.text, ranker: rank }, SEED_DEPTH),
    ),
  );
  return [...new Set(lists.flat().map((row) => row.id))];
}

/** Vector proposals by scoring every embedding of the space in scope (no HNSW index serves it). */
async function exactVectorCandidates(
  input: ProposeInput,
  want: { limit: number; missing: Missing; ranker: TextRanker | undefined },
): Promise<Candidate[]> {
  const { limit, missing, ranker } = want;
  const query = input.query as QueryVector;
  const params = new Params();
  const where = filterSql(params, {
    workspaceId: input.workspaceId,
    part: input.part,
    declarations: declarations(input.catalog),
  });
  const signals = missingSignalsSql(input, params, { missing, ranker });
  const join = embeddingJoinSql(params, {
    workspaceId: input.workspaceId,
    space: query.space,
    optional: false,
  });
  const similarity = similaritySql(input.db, params, query);
  // An entity's records through the entity index (as textCandidates): without statistics the
  // planner read the whole collection through a field index instead (2.4k buffers for 75 rows).
  const rows = input.part.scope.entities
    ? entityRecordsSql(params, input.workspaceId, input.part.scope.entities)
    : ALL_RECORDS;
  return run(input.db, {
    sql: exactVectorSql({
      select: candidateColumns(accessOf(input, params)),
      similarity,
      signals,
      rows,
      join,
      where,
      limit: params.add(limit),
    }),
    params,
  });
}

async function recentCandidates(
  input: ProposeInput,
  limit: number,
  missing: Missing = {},
): Promise<Candidate[]> {
  const params = new Params();
  const where = filterSql(params, {
    workspaceId: input.workspaceId,
    part: input.part,
    declarations: declarations(input.catalog),
  });
  const signals = missingSignalsSql(input, params, {
    missing,
    ranker: missing.text_match ? await rankerOf(input) : undefined,
  });
  return run(input.db, {
    sql: recentSql({
      select: candidateColumns(accessOf(input, params)),
      signals,
      where,
      limit: params.add(limit),
    }),
    params,
    repeated: true,
  });
}

async function structuredCandidates(input: ProposeInput): Promise<Candidate[]> {
  const params = new Params();
  const decl = declarations(input.catalog);
  const where = filterSql(params, { workspaceId: input.workspaceId, part: input.part, declarations: decl });
  // explain: the values the rows are sorted by, as sorted (numeric, timestamptz or text).
  const orderValues = input.explain
    ? orderValuesSql(
        input.part.order_by.map((order) => fieldValueSql("r.", declarationOf(decl, input.part, order.field))),
      )
    : "";
  return run(input.db, {
    sql: structuredSql({
      select: candidateColumns(accessOf(input, params)),
      orderValues,
      where,
      order: orderSql(input.part, decl, input.part.order_by),
      limit: params.add(input.part.k),
    }),
    params,
  });
}

/** The signals a hybrid candidate needs beside its own list's (none outside hybrid). */
interface Missing {
  text_match?: boolean;
  similarity?: boolean;
}

/**
 * Columns computing the missing signals of each row a proposal returns: similarity (null when
 * the record has no embedding in the query's space) and text_match (0 when it does not match).
 * Computed inside the proposal, for its rows only, instead of in a statement after the merge.
 */
function missingSignalsSql(
  input: ProposeInput,
  params: Params,
  signals: { missing: Missing; ranker: TextRanker | undefined },
): string {
  const { missing, ranker } = signals;
  const columns: string[] = [];
  if (missing.text_match && ranker) {
    const tsq = tsQuerySql(params, textConfig(input), input.q ?? "");
    columns.push(textMatchColumnSql(tsq, textMatchSql(params, ranker, "x.tsq")));
  }
  if (missing.similarity) {
    columns.push(
      input.query
        ? similarityColumnSql({
            similarity: similaritySql(input.db, params, input.query),
            workspace: params.workspace(input.workspaceId),
            space: params.add(input.query.space),
          })
        : NO_SIMILARITY,
    );
  }
  return columns.map((column) => `, ${column}`).join("");
}

/** Hybrid's proposal lists: vector, text and newest first. */
const HYBRID_LISTS = 3;

/**
 * How deep hybrid first reads each of its lists (also the bench's recall measure). An entity's
 * records are few and the three lists hold mostly the same ones: they are read whole, in one
 * statement (entityHybridCandidates), as a shallow first read would only be read again.
 */
export function hybridFirstDepth(part: SearchPart): number {
  const limit = part.params.candidates;
  return part.scope.entities ? limit : firstListDepth(limit, HYBRID_LISTS);
}

/** A row of entityHybridCandidates: a candidate and its place in each list (null: not in it). */
interface ListedCandidate extends Candidate {
  vector_rank: number | string | null;
  text_rank: number | string | null;
  recent_rank: number | string | null;
}

/**
 * Hybrid scoped by entity, in one statement: the entity's rows are read once, each signal is
 * computed once per row, and each row comes with its place in each list's order (the orders of
 * vectorCandidates, textCandidates and recentCandidates), up to `limit`, for the same round
 * robin. Three statements each computed both signals for the same rows, one after the other on
 * PGlite (bench/notes/search-paths.md: 0.6x the time on PGlite, 0.69-0.86x on a server; an entity of
 * 450-1,425 records is as fast as the three lists run at once on a server's pool).
 */
async function entityHybridCandidates(
  input: ProposeInput,
  read: { entities: string[]; limit: number; offered: Map<string, number[]> | undefined },
): Promise<Candidate[]> {
  const { entities, limit, offered } = read;
  const params = new Params();
  const where = filterSql(params, {
    workspaceId: input.workspaceId,
    part: input.part,
    declarations: declarations(input.catalog),
  });
  // No wanted term (only exclusions, or none): the text list is empty and text_match is 0.
  const tsq = tsQuerySql(params, textConfig(input), input.q ?? "");
  const text = tsq ? { tsq, rank: textMatchSql(params, await rankerOf(input), "q.tsq") } : undefined;
  const vector = input.query
    ? {
        join: embeddingJoinSql(params, {
          workspaceId: input.workspaceId,
          space: input.query.space,
          optional: true,
        }),
        similarity: similaritySql(input.db, params, input.query),
      }
    : undefined;
  const rows = await candidateRows<ListedCandidate>(input.db, {
    sql: entityHybridSql({
      text,
      vector,
      limit: params.add(limit),
      select: candidateColumns(accessOf(input, params), "y"),
      columns: candidateColumns(),
      rows: entityRecordsSql(params, input.workspaceId, entities),
      where,
    }),
    values: params.values,
    // The entity fence fixes the plan (textCandidates).
    repeated: true,
  });
  const candidates = rows.map(({ vector_rank, text_rank, recent_rank, ...candidate }) => ({
    candidate,
    places: [vector_rank, text_rank, recent_rank].map((place) =>
      place === null ? undefined : Number(place),
    ),
  }));
  const list = (j: number) =>
    candidates
      .filter((c) => c.places[j] !== undefined)
      .sort((a, b) => (a.places[j] as number) - (b.places[j] as number))
      .map((c) => c.candidate);
  return interleave([list(0), list(1), list(2)], limit, offered).out;
}

export async function propose(proposal: ProposeInput): Promise<Proposal> {
  const limit = proposal.part.params.candidates;
  // The text rank's statistics are read once for every list of the search.
  const ranksText = proposal.part.mode === "text" || proposal.part.mode === "hybrid";
  const input = ranksText ? { ...proposal, ranker: await rankerOf(proposal) } : proposal;
  let candidates: Candidate[];
  const offered = input.explain && input.part.mode === "hybrid" ? new Map<string, number[]>() : undefined;
  switch (input.part.mode) {
    case "text":
      candidates = await textCandidates(input, limit);
      break;
    case "vector":
      candidates = await vectorCandidates(input, limit);
      break;
    case "recent":
      candidates = await recentCandidates(input, limit);
      break;
    case "structured":
      candidates = await structuredCandidates(input);
      break;
    case "hybrid":
      if (input.part.scope.entities) {
        candidates = await entityHybridCandidates(input, {
          entities: input.part.scope.entities,
          limit,
          offered,
        });
        break;
      }
      // Independent proposals (HYBRID_LISTS of them), each returning both signals: a server pool
      // runs them at once (PGlite queues them).
      candidates = await interleaveByNeed(
        [
          (n) => vectorCandidates(input, n, { text_match: true }),
          (n) => textCandidates(input, n, { similarity: true }),
          (n) => recentCandidates(input, n, { text_match: true, similarity: true }),
        ],
        limit,
        hybridFirstDepth(input.part),
        offered,
      );
      break;
  }
  if (!offered) return { candidates, count: candidates.length };
  const proposedBy = new Map<string, ProposalList[]>();
  for (const [id, lists] of offered) {
    const names = HYBRID_LIST_NAMES.filter((_, j) => lists.includes(j));
    proposedBy.set(id, names);
  }
  return { candidates, count: candidates.length, proposedBy };
}
