// POST /artifacts/{name}/render: the artifact's blocks (current beliefs of an entity, or a view's
// results) rendered as escaped rows within their token budgets, filled into the template. No
// model is called; the same inputs give the same bytes (rows in a fixed order, UTC seconds,
// scores to 2 decimals). A document block fires the entity's read triggers, as GET /document.
import {
  type ArtifactBlock,
  activeArtifact,
  type DocumentBlock,
  fillTemplate,
  type InstalledCatalog,
  type ResolvedArtifact,
  requireCatalog,
  type ViewBlock,
  validateArguments,
  valueText,
} from "../catalog/index.js";
import { type FreshnessEntry, readFreshness } from "../derivations/index.js";
import { currentHeads, type HeadRow, rowRecords } from "../records/index.js";
import {
  countRenderTokens,
  displayScoreNames,
  escapeMarkup,
  type RowRecord,
  renderRows,
  runView,
  type ViewDeps,
} from "../search/index.js";

export interface ArtifactDeps extends ViewDeps {
  /** DOCUMENT_MAX_RECORDS: a document block reads at most this many current records. */
  documentMaxRecords: number;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

interface BlockResult {
  text: string;
  record_ids: string[];
  tokens: number;
  truncated: boolean;
  /** Document blocks: the entity read and its current active beliefs (learning targets). */
  entity?: string;
  heads?: HeadRow[];
  freshness?: FreshnessEntry[];
}

export interface Render {
  catalog: InstalledCatalog;
  artifact: ResolvedArtifact;
  parameters: Record<string, unknown>;
  content: string;
  manifest: Manifest;
  blocks: Record<string, BlockResult>;
}

export type Manifest = ReturnType<typeof manifestOf>;

interface Context {
  deps: ArtifactDeps;
  workspaceId: string;
  catalog: InstalledCatalog;
  parameters: Record<string, unknown>;
  scores: string[];
}

/** A text with `{{parameter}}` placeholders filled with the values' text (absent: empty). */
function fillText(text: string, parameters: Record<string, unknown>): string {
  return text.replace(PLACEHOLDER, (_, name: string) =>
    Object.hasOwn(parameters, name) ? valueText(parameters[name]) : "",
  );
}

function budgetOf(ctx: Context, block: ArtifactBlock): number {
  const deployment = ctx.deps.renderBudgetTokens;
  return block.max_tokens === null ? deployment : Math.min(block.max_tokens, deployment);
}

function renderBlock(ctx: Context, block: ArtifactBlock, rows: RowRecord[]): BlockResult {
  const out = renderRows(rows, { budgetTokens: budgetOf(ctx, block), displayScores: ctx.scores });
  return {
    text: out.rendered,
    record_ids: rows.slice(0, out.rows).map((row) => row.id),
    tokens: out.tokens,
    truncated: out.truncated,
  };
}

async function documentBlock(ctx: Context, block: DocumentBlock): Promise<BlockResult> {
  const entity = fillText(block.entity, ctx.parameters);
  if (entity.trim() === "") return { ...renderBlock(ctx, block, []), entity, heads: [], freshness: [] };
  const read = { entity, collections: block.collections, status: block.status };
  const heads = await currentHeads(ctx.deps.db, ctx.workspaceId, {
    ...read,
    maxRecords: ctx.deps.documentMaxRecords,
  });
  const beliefs = heads.filter((head) => !head.tombstone);
  const freshness = await readFreshness(ctx.deps.db, {
    workspaceId: ctx.workspaceId,
    catalog: ctx.catalog,
    entity,
    collections: block.collections,
  });
  return { ...renderBlock(ctx, block, beliefs), entity, heads: beliefs, freshness };
}

async function viewBlock(ctx: Context, block: ViewBlock): Promise<BlockResult> {
  const args = fillTemplate(block.args, ctx.parameters);
  const result = await runView(ctx.deps, {
    workspaceId: ctx.workspaceId,
    catalog: ctx.catalog,
    id: block.view,
    args,
  });
  return renderBlock(ctx, block, await rowRecords(ctx.deps.db, ctx.workspaceId, result.input_record_ids));
}

/** Block and parameter names in the order the template first uses them. */
function templateOrder(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1] as string))];
}

function manifestOf(
  catalog: InstalledCatalog,
  artifact: ResolvedArtifact,
  blocks: Record<string, BlockResult>,
  content: string,
) {
  const [packageName, packageVersion] = catalog.package.split("@") as [string, string];
  const order = templateOrder(artifact.def.template).filter((name) => Object.hasOwn(blocks, name));
  const freshness = new Map<string, FreshnessEntry & { entity: string }>();
  for (const name of order) {
    const block = blocks[name] as BlockResult;
    for (const entry of block.freshness ?? []) {
      freshness.set(`${block.entity}\u0000${entry.derivation}`, { entity: block.entity as string, ...entry });
    }
  }
  return {
    artifact: { name: artifact.def.name, version: artifact.def.version, definition_hash: artifact.hash },
    package: { name: packageName, version: packageVersion, hash: catalog.packageHash },
    catalog_hash: catalog.catalogHash,
    record_ids: [...new Set(order.flatMap((name) => blocks[name]?.record_ids ?? []))],
    blocks: Object.fromEntries(
      order.map((name) => {
        const block = blocks[name] as BlockResult;
        return [name, { record_ids: block.record_ids, tokens: block.tokens, truncated: block.truncated }];
      }),
    ),
    freshness: [...freshness.values()],
    truncated: order.some((name) => blocks[name]?.truncated),
    tokens: countRenderTokens(content),
  };
}

/** A render request: the active artifact and its validated parameters (defaults applied). */
export interface RenderRequest {
  catalog: InstalledCatalog;
  artifact: ResolvedArtifact;
  parameters: Record<string, unknown>;
}

/** Resolves a request before anything is read (refusals come first and change nothing). */
export async function renderRequest(
  deps: ArtifactDeps,
  workspaceId: string,
  name: string,
  args: unknown,
): Promise<RenderRequest> {
  const catalog = await requireCatalog(deps.db, workspaceId);
  const artifact = activeArtifact(catalog, name);
  return { catalog, artifact, parameters: validateArguments(artifact.def.parameters, args) };
}

/** Renders the blocks in template order and fills the template. */
export async function renderFor(
  deps: ArtifactDeps,
  workspaceId: string,
  request: RenderRequest,
): Promise<Render> {
  const { catalog, artifact, parameters } = request;
  const ctx: Context = { deps, workspaceId, catalog, parameters, scores: displayScoreNames(catalog.index) };
  const blocks: Record<string, BlockResult> = {};
  for (const blockName of templateOrder(artifact.def.template)) {
    const block = artifact.def.blocks[blockName];
    if (!block || Object.hasOwn(blocks, blockName)) continue;
    blocks[blockName] =
      block.kind === "document" ? await documentBlock(ctx, block) : await viewBlock(ctx, block);
  }
  const content = artifact.def.template.replace(PLACEHOLDER, (_, placeholder: string) => {
    const block = blocks[placeholder];
    if (block) return block.text;
    return Object.hasOwn(parameters, placeholder) ? escapeMarkup(valueText(parameters[placeholder])) : "";
  });
  return {
    catalog,
    artifact,
    parameters,
    content,
    blocks,
    manifest: manifestOf(catalog, artifact, blocks, content),
  };
}

/** POST /artifacts/{name}/render: the content and its manifest. */
export async function renderArtifact(deps: ArtifactDeps, workspaceId: string, name: string, args: unknown) {
  const request = await renderRequest(deps, workspaceId, name, args);
  const { content, manifest } = await renderFor(deps, workspaceId, request);
  return { content, manifest };
}
