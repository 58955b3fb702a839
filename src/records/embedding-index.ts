// Vector indexes per embedding space (CONVENTIONS.md, Storage). The embeddings table holds the
// vectors of every space in one untyped `vector` column, and an HNSW index needs one dimension
// count, so each (space, dimensions) gets a partial HNSW index over a typed expression:
// `embedding::vector(N)`, or `embedding::halfvec(N)` past the 2,000 dimensions pgvector indexes
// as `vector` (OpenAI's text-embedding-3-large has 3,072); a space wider than halfvec's 4,000 has
// no index and its searches scan exactly. A nearest-neighbour query uses the index when it
// orders by exactly that expression and repeats the index's predicate (space and vector_dims).
// Without pgvector the column is real[] and searches scan exactly; there is nothing to index.
import type { EmbeddingSpace, SpaceIndexes } from "../catalog/index.js";
import { type Db, type Queryable, sqlLiteral } from "../platform/db/index.js";
import { sha256Hex } from "../platform/hash.js";

/** The widest vectors pgvector's HNSW indexes as `vector`, and as half-precision `halfvec`. */
const VECTOR_INDEX_MAX = 2000;
const HALFVEC_INDEX_MAX = 4000;

export interface SpaceIndex {
  /** The typed expression the space's HNSW index is built over; queries order by it. */
  expression: string;
  /** Its type: a query vector is cast to it. */
  type: string;
}

/**
 * The indexed expression of a space's vectors, or undefined when the space is too wide for an
 * HNSW index. Half precision changes the walk's order a little, not the similarity a search
 * reports (that is computed on the stored vector).
 */
export function spaceIndex(column: string, dimensions: number): SpaceIndex | undefined {
  const n = Math.trunc(dimensions);
  const type = n <= VECTOR_INDEX_MAX ? "vector" : n <= HALFVEC_INDEX_MAX ? "halfvec" : undefined;
  return type && { expression: `(${column}::${type}(${n}))`, type };
}

/** The partial-index predicate of a space; a query must repeat it for the planner to use the index. */
export function spacePredicateSql(alias: string, space: string, dimensions: number): string {
  return `${alias}.space = ${sqlLiteral(space)} AND vector_dims(${alias}.embedding) = ${Math.trunc(dimensions)}`;
}

function indexName(space: EmbeddingSpace): string {
  return `embeddings_hnsw_${sha256Hex(`${space.space}\u0000${space.dimensions}`).slice(0, 24)}`;
}

// Two workspaces publishing the same new space at once would race on the index name, and two
// processes starting at once would both convert the column.
const INDEX_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended('engram.space-indexes', 0))";

// pgvector's default graph (m 16, ef_construction 64). Inserting into it is most of what
// enrichment costs (2 ms per embedding on a 2-core server at 100k), and sparser graphs are
// cheaper (m 12 / ef_construction 48: 1.2 ms), but on the bench's filtered workspace-wide reads
// they found less of the exact top 20 (0.77 against 0.81) unless ef_search doubled, which cost
// hybrid more than its latency target allows (bench/RESULTS.md, issue 20).
async function createIndexes(tx: Queryable, spaces: EmbeddingSpace[]): Promise<void> {
  for (const space of spaces) {
    const index = spaceIndex("embedding", space.dimensions);
    if (!index) continue;
    await tx.exec(
      `CREATE INDEX IF NOT EXISTS ${indexName(space)} ON embeddings
         USING hnsw (${index.expression} ${index.type}_cosine_ops)
         WHERE ${spacePredicateSql("embeddings", space.space, space.dimensions)}`,
    );
  }
}

/** Creates the HNSW index of each space that has none yet (in the caller's transaction). */
export function spaceIndexes(db: Pick<Db, "hasVector">): SpaceIndexes {
  return {
    async prepare(tx: Queryable, spaces: EmbeddingSpace[]) {
      if (!db.hasVector || spaces.length === 0) return;
      await tx.query(INDEX_LOCK_SQL);
      await createIndexes(tx, spaces);
    },
  };
}

async function storedColumnType(tx: Queryable): Promise<string | undefined> {
  const { rows } = await tx.query<{ type: string }>(
    `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = 'embeddings'::regclass AND attname = 'embedding'`,
  );
  return rows[0]?.type;
}

/**
 * Makes the stored embeddings match the layout this process serves (after migrations). Migration
 * 0005 chose the column type by whether pgvector was installed then; a server that gained
 * pgvector later, or one forced to the exact layout (VECTOR_LAYOUT), converts its vectors here:
 * to `vector` with one HNSW index per stored (space, dimensions), or back to real[] without them.
 * Returns the conversion made, if any.
 */
export async function alignEmbeddingLayout(db: Db): Promise<"vector" | "real[]" | undefined> {
  const wanted = db.hasVector ? "vector" : "real[]";
  if ((await storedColumnType(db)) === wanted) return undefined;
  return db.transaction(async (tx) => {
    await tx.query(INDEX_LOCK_SQL);
    if ((await storedColumnType(tx)) === wanted) return undefined;
    if (db.hasVector) {
      await tx.exec("ALTER TABLE embeddings ALTER COLUMN embedding TYPE vector USING embedding::vector");
      const { rows } = await tx.query<EmbeddingSpace>(
        "SELECT DISTINCT space, vector_dims(embedding) AS dimensions FROM embeddings",
      );
      await createIndexes(tx, rows);
    } else {
      const { rows } = await tx.query<{ indexname: string }>(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'embeddings' AND indexname LIKE 'embeddings\\_hnsw\\_%'",
      );
      for (const row of rows) await tx.exec(`DROP INDEX ${row.indexname}`);
      await tx.exec("ALTER TABLE embeddings ALTER COLUMN embedding TYPE real[] USING embedding::real[]");
    }
    return wanted;
  });
}
