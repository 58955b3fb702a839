// Graph views (docs/catalog.md, "Views"; docs/api.md, "Views"): walks over the links of an edges collection (kind graph)
// and the nodes no link touches (kind graph_orphans).
//
// Decisions where the spec leaves room:
// - A link is walkable when it is ready, active, not a tombstone, current (a row with a key is
//   the head of its (entity, collection, key, active) slot; a row without key is always
//   current), carries string subject and object values at the declared field paths of its exact
//   collection version, and is live: a directly written link (run_id null) always, an
//   automatically produced one (run_id set) only while one of its derived_from parents is still
//   the current, non-tombstone head of its slot (a parent without key counts while it exists).
//   Both graph kinds use this one rule.
// - The seed is trimmed before validation (a blank seed is refused). A supplied limit above
//   GRAPH_LIMIT_MAX is refused (422 request_schema); an applied default above it is lowered to
//   it.
// - Paths: every simple path from the seed (no node twice) of 1..depth links, each a separate
//   path, ordered by number of links, then by the node names (code unit order), then by the
//   link ids. The walk goes one depth at a time and stops deepening once more than limit paths
//   are known, so the cut is exact while the work stays bounded by limit times the fan-out.
// - hits and citations are the same list: each link used by a returned path once, in first-use
//   order, with id, text (shortened like search hit text), subject, object, predicate (null
//   when absent) and content (the stored content). nodes holds the seed and every node on a
//   returned path, sorted.
// - graph_orphans: a node's name is its key, or its entity when it has no key; it is an orphan
//   when no walkable link names it as subject or object. Nodes are ordered by entity, key
//   (byte order, keyless first), then id.
// - backend: one entry per search profile of the collections read; candidate_count counts the
//   rows read there (a walk: the links of the frontiers it read; graph_orphans: every link, plus
//   node rows). profiles: the sorted profiles of every listed version of the collections the
//   view names.
import {
  type CollectionDef,
  type GraphMapping,
  type InstalledCatalog,
  type ParamDecl,
  type ViewDef,
  validateArguments,
} from "../catalog/index.js";
import { type Db, queryRowsAsJson, storageLayout } from "../platform/db/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { type Direction, linksSql, ORPHANS, touchingSql, versionsSql } from "./graph-sql.js";
import { HIT_TEXT_CHARS, shortenMiddle } from "./shape.js";
import { Params } from "./sql.js";

/** Where a walk reads links: a workspace's edges collection, as its catalog maps it. */
export interface GraphSource {
  db: Db;
  workspaceId: string;
  catalog: InstalledCatalog;
  mapping: GraphMapping;
}

export interface GraphWalk {
  seed: string;
  /** Empty: every predicate. */
  predicates: string[];
  direction: Direction;
  depth: number;
  limit: number;
}

export interface GraphLink {
  id: string;
  text: string;
  subject: string;
  object: string;
  predicate: string | null;
  content: Record<string, unknown>;
}

export interface GraphPath {
  nodes: string[];
  edge_ids: string[];
  depth: number;
}

export interface GraphWalkResult {
  nodes: string[];
  paths: GraphPath[];
  /** Each link used by the paths once, in first-use order. */
  links: GraphLink[];
  truncated: boolean;
  /** Walkable links read, by search profile. */
  read: Map<string, number>;
}

export interface GraphDeps {
  db: Db;
  /** GRAPH_LIMIT_MAX */
  graphLimitMax: number;
  maxResponseBytes: number;
}

interface LinkRow {
  id: string;
  collection_version: number;
  text: string;
  content: Record<string, unknown>;
  subject: string;
  object: string;
  predicate: string | null;
}

/** The listed versions of a collection, by version. */
function listedVersions(catalog: InstalledCatalog, name: string): CollectionDef[] {
  return [...catalog.index.collections.values()]
    .map((entry) => entry.def)
    .filter((def) => def.name === name)
    .sort((a, b) => a.version - b.version);
}

/**
 * The walkable links of the workspace (predicates filtered when given), or with `touching` only
 * those naming one of these nodes as subject (`out`), object (`in`) or either: a walk reads the
 * links of its frontier, through the declared fields' expression indexes when the mapping's
 * fields are declared `filter` (src/search/field-indexes.ts).
 */
export async function loadLinks(
  graph: GraphSource,
  filter: { predicates?: string[]; touching?: { nodes: string[]; direction: Direction } } = {},
): Promise<{ links: GraphLink[]; read: Map<string, number> }> {
  const { db, workspaceId, catalog, mapping } = graph;
  const { predicates = [], touching } = filter;
  const versions = listedVersions(catalog, mapping.edges);
  const read = new Map<string, number>(versions.map((def) => [def.search_profile, 0]));
  if (versions.length === 0) return { links: [], read };
  const params = new Params();
  const scope = touching
    ? touchingSql(params, { versions, mapping, touching })
    : versionsSql(params, mapping.edges, versions);
  // Repeated: a view's walks send the same few texts, and on PGlite planning was a third of a
  // graph request (bench/notes/pglite.md).
  const rows = await queryRowsAsJson<LinkRow>(db, {
    sql: linksSql(params, { workspaceId, versions, mapping, scope, predicates }),
    values: params.values,
    repeated: true,
  });
  const profileOf = new Map(versions.map((def) => [def.version, def.search_profile]));
  const links = rows.map(({ collection_version, ...link }) => {
    const profile = profileOf.get(Number(collection_version)) as string;
    read.set(profile, (read.get(profile) ?? 0) + 1);
    return link;
  });
  return { links, read };
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareLists(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareStrings(a[i] as string, b[i] as string);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Every simple path from the seed, by distance then node names then link ids, cut to limit. */
export function walkLinks(links: GraphLink[], walk: GraphWalk) {
  const next = new Map<string, { to: string; link: GraphLink }[]>();
  const step = (from: string, to: string, link: GraphLink) => {
    if (from === to) return; // a self-loop always revisits its node
    const list = next.get(from) ?? [];
    list.push({ to, link });
    next.set(from, list);
  };
  for (const link of links) {
    if (walk.direction !== "in") step(link.subject, link.object, link);
    if (walk.direction !== "out") step(link.object, link.subject, link);
  }
  type Walked = { nodes: string[]; links: GraphLink[] };
  const byLinks = (a: Walked, b: Walked) =>
    compareLists(
      a.links.map((l) => l.id),
      b.links.map((l) => l.id),
    );
  let frontier: Walked[] = [{ nodes: [walk.seed], links: [] }];
  const found: Walked[] = [];
  for (let depth = 1; depth <= walk.depth && frontier.length > 0 && found.length <= walk.limit; depth++) {
    // The frontier is sorted, so the children of a run of parents with the same nodes all sort
    // before those of any later run: stop once the level has enough paths to decide the cut.
    const need = walk.limit + 1 - found.length;
    const level: Walked[] = [];
    for (let start = 0; start < frontier.length && level.length < need; ) {
      const first = frontier[start] as Walked;
      let end = start + 1;
      while (end < frontier.length && compareLists((frontier[end] as Walked).nodes, first.nodes) === 0) end++;
      const run: Walked[] = [];
      for (const path of frontier.slice(start, end)) {
        for (const { to, link } of next.get(path.nodes[path.nodes.length - 1] as string) ?? []) {
          if (!path.nodes.includes(to))
            run.push({ nodes: [...path.nodes, to], links: [...path.links, link] });
        }
      }
      level.push(...run.sort((a, b) => compareLists(a.nodes, b.nodes) || byLinks(a, b)));
      start = end;
    }
    found.push(...level);
    frontier = level;
  }
  const kept = found.slice(0, walk.limit);
  const used = new Map<string, GraphLink>();
  const nodes = new Set<string>([walk.seed]);
  for (const path of kept) {
    for (const node of path.nodes) nodes.add(node);
    for (const link of path.links) if (!used.has(link.id)) used.set(link.id, link);
  }
  return {
    nodes: [...nodes].sort(compareStrings),
    paths: kept.map((path) => ({
      nodes: path.nodes,
      edge_ids: path.links.map((l) => l.id),
      depth: path.links.length,
    })),
    links: [...used.values()],
    truncated: found.length > walk.limit,
  };
}

/**
 * A graph walk over the view's edges collection (also for answers and graph_boost). The links are
 * read frontier by frontier, up to depth times: a path of at most depth links from the seed uses
 * only links so reached, so the walk over them is the walk over every link. Paths are ordered by
 * distance first, so once the links read hold more than limit paths, deeper links could only add
 * paths past the cut: the reading stops there (a hub seed reads one level, not its neighbours').
 */
export async function walkGraph(graph: GraphSource, walk: GraphWalk): Promise<GraphWalkResult> {
  const links = new Map<string, GraphLink>();
  const read = new Map<string, number>();
  const reached = new Set<string>([walk.seed]);
  let frontier = [walk.seed];
  for (let depth = 1; depth <= walk.depth && frontier.length > 0; depth++) {
    const level = await loadLinks(graph, {
      predicates: walk.predicates,
      touching: { nodes: frontier, direction: walk.direction },
    });
    for (const [profile, n] of level.read) read.set(profile, (read.get(profile) ?? 0) + n);
    const next: string[] = [];
    for (const link of level.links) {
      links.set(link.id, link);
      for (const node of [link.subject, link.object]) {
        if (!reached.has(node)) {
          reached.add(node);
          next.push(node);
        }
      }
    }
    frontier = next;
    if (depth < walk.depth) {
      // Past the cut already: this walk is the whole walk's (it stops deepening there too).
      const walked = walkLinks([...links.values()], { ...walk, depth });
      if (walked.truncated) return { ...walked, read };
    }
  }
  return { ...walkLinks([...links.values()], walk), read };
}

/** Arguments of a graph view: the seed trimmed, the limit within the deployment ceiling. */
export function graphArguments(
  parameters: Record<string, ParamDecl>,
  args: unknown,
  graphLimitMax: number,
): Record<string, unknown> {
  let input = args;
  if (input !== null && typeof input === "object" && !Array.isArray(input)) {
    const given = input as Record<string, unknown>;
    if (typeof given.seed === "string") input = { ...given, seed: given.seed.trim() };
  }
  const supplied = input !== null && typeof input === "object" && Object.hasOwn(input, "limit");
  const out = validateArguments(parameters, input);
  if (typeof out.limit === "number" && out.limit > graphLimitMax) {
    if (supplied) {
      throw validationError(
        `invalid parameters: limit: must be at most ${graphLimitMax} on this deployment`,
        [{ path: "limit", message: `must be at most ${graphLimitMax} (GRAPH_LIMIT_MAX)` }],
      );
    }
    out.limit = graphLimitMax;
  }
  return out;
}

function hitOf(link: GraphLink) {
  return {
    id: link.id,
    text: shortenMiddle(link.text, HIT_TEXT_CHARS),
    subject: link.subject,
    object: link.object,
    predicate: link.predicate,
    content: link.content,
  };
}

interface NodeRow {
  id: string;
  collection_version: number;
  entity: string;
  key: string | null;
  text: string;
  content: Record<string, unknown>;
}

/** Current nodes no walkable link names, ordered by entity and key: limit + 1 rows at most. */
async function loadOrphans(
  source: Omit<GraphSource, "mapping">,
  read: { nodesCollection: string; linked: string[]; limit: number },
): Promise<{ rows: NodeRow[]; versions: CollectionDef[] }> {
  const { db, workspaceId, catalog } = source;
  const { nodesCollection, linked, limit } = read;
  const versions = listedVersions(catalog, nodesCollection);
  if (versions.length === 0) return { rows: [], versions };
  const rows = await queryRowsAsJson<NodeRow>(db, {
    sql: ORPHANS,
    values: [workspaceId, nodesCollection, versions.map((def) => def.version), linked, limit + 1],
  });
  return { rows, versions };
}

function profilesOf(catalog: InstalledCatalog, names: (string | undefined)[]): string[] {
  const profiles = new Set<string>();
  for (const name of names) {
    if (name !== undefined) for (const def of listedVersions(catalog, name)) profiles.add(def.search_profile);
  }
  return [...profiles].sort();
}

function bounded<T>(response: T, maxBytes: number): T {
  const bytes = Buffer.byteLength(JSON.stringify(response));
  if (bytes > maxBytes) {
    throw new AppError(
      "response_too_large",
      `the response would be ${bytes} bytes (limit ${maxBytes}); reduce limit or depth`,
    );
  }
  return response;
}

/** POST /views/{name}/query for kinds graph and graph_orphans. */
export async function queryGraphView(
  deps: GraphDeps,
  query: {
    workspaceId: string;
    catalog: InstalledCatalog;
    view: ViewDef;
    hash: string | undefined;
    args: unknown;
  },
) {
  const { workspaceId, catalog, view, hash, args } = query;
  const mapping = view.graph as GraphMapping;
  const parameters = graphArguments(view.parameters, args, deps.graphLimitMax);
  const profiles = profilesOf(catalog, [
    mapping.edges,
    view.kind === "graph_orphans" ? mapping.nodes : undefined,
  ]);
  const layout = storageLayout(deps.db);
  const backend = (read: Map<string, number>) =>
    profiles.map((name) => ({ name, layout, candidate_count: read.get(name) ?? 0 }));
  const head = { view: { name: view.name, version: view.version, hash }, parameters };
  if (view.kind === "graph") {
    const walk = await walkGraph(
      { db: deps.db, workspaceId, catalog, mapping },
      {
        seed: parameters.seed as string,
        predicates: parameters.predicates as string[],
        direction: parameters.direction as Direction,
        depth: parameters.depth as number,
        limit: parameters.limit as number,
      },
    );
    const hits = walk.links.map(hitOf);
    return bounded(
      {
        ...head,
        hits,
        input_record_ids: hits.map((hit) => hit.id),
        nodes: walk.nodes,
        paths: walk.paths,
        citations: hits,
        truncated: walk.truncated,
        profiles,
        backend: backend(walk.read),
      },
      deps.maxResponseBytes,
    );
  }
  const limit = parameters.limit as number;
  const source = { db: deps.db, workspaceId, catalog };
  const { links, read } = await loadLinks({ ...source, mapping });
  const linked = new Set<string>();
  for (const link of links) linked.add(link.subject).add(link.object);
  const nodes = await loadOrphans(source, {
    nodesCollection: mapping.nodes as string,
    linked: [...linked],
    limit,
  });
  const profileOf = new Map(nodes.versions.map((def) => [def.version, def.search_profile]));
  for (const row of nodes.rows) {
    const profile = profileOf.get(Number(row.collection_version)) as string;
    read.set(profile, (read.get(profile) ?? 0) + 1);
  }
  const orphans = nodes.rows.slice(0, limit).map((row) => ({
    id: row.id,
    entity: row.entity,
    key: row.key,
    text: shortenMiddle(row.text, HIT_TEXT_CHARS),
    content: row.content,
  }));
  return bounded(
    {
      ...head,
      hits: orphans,
      orphans,
      input_record_ids: orphans.map((orphan) => orphan.id),
      truncated: nodes.rows.length > limit,
      profiles,
      backend: backend(read),
    },
    deps.maxResponseBytes,
  );
}
