// What each definition family holds once parsed (artifacts, views, processors, derivations,
// triggers, the MCP interface). Types only, below the parsers in ../families: the selected
// catalog (catalog-index.ts) lists every family and every family's link step reads it, so the
// shapes sit where both reach them without importing each other. Each parser documents its fields.
import type { ParamDecl } from "./params.js";
import type { Capability } from "./types.js";

// Artifacts (../families/artifacts.ts).
export interface DocumentBlock {
  kind: "document";
  /** Entity text; may hold `{{parameter}}` placeholders. */
  entity: string;
  collections: string[];
  status: "active" | "draft";
  max_tokens: number | null;
}

export interface ViewBlock {
  kind: "view";
  /** name@version */
  view: string;
  args: Record<string, unknown>;
  max_tokens: number | null;
}

export type ArtifactBlock = DocumentBlock | ViewBlock;

export interface ArtifactDef {
  name: string;
  version: number;
  active: boolean;
  kind: "prompt";
  lifecycle: "live" | "reviewed";
  description: string | null;
  parameters: Record<string, ParamDecl>;
  blocks: Record<string, ArtifactBlock>;
  template: string;
  learning: { block: string; artifact: string | null } | null;
  snapshot: { collection: string; type: string } | null;
  candidate: { derivation: string; keys: string[] } | null;
}

// Views (../families/views.ts).
export type ViewKind = "search" | "graph" | "graph_orphans";

export interface GraphMapping {
  /** Collection (name) holding the links. */
  edges: string;
  /** Declared field names of the edges collection. */
  subject: string;
  object: string;
  predicate: string;
  /** graph_orphans: the collection (name) whose current records are the nodes. */
  nodes?: string;
}

export interface ViewDef {
  name: string;
  version: number;
  active: boolean;
  kind: ViewKind;
  description?: string;
  parameters: Record<string, ParamDecl>;
  /** kind search: the request template, placeholders unfilled. */
  query?: Record<string, unknown>;
  /** kind search only; empty otherwise. */
  required_capabilities: Capability[];
  /** Graph kinds only. */
  graph?: GraphMapping;
}

// Enrichment processors (../families/processors.ts).
export type ProcessorKind = "score" | "embedding" | "json";

export interface ProcessorDef {
  name: string;
  kind: ProcessorKind;
  source: "llm";
  input: { collections: string[] };
  /** [min, max] for score processors, else null. */
  scale: [number, number] | null;
  /** The value stored when the model fails (score: a number within scale; json: optional). */
  default: unknown;
  /** A model alias (score, json) or an embedding alias (embedding) of conf/models.yaml. */
  model: string;
  prompt: string | null;
  output_schema: Record<string, unknown> | null;
  description: string | null;
}

// Derivations (../families/derivations.ts).
export type SourceKind = "changes" | "snapshot" | "current";

export type RecordStatus = "active" | "draft";

export interface DerivationSource {
  kind: SourceKind;
  collections: string[];
  types: string[] | null;
  statuses: RecordStatus[];
  keyed: boolean | "any";
  keys: string[] | null;
  max_records: number | null;
  max_tokens: number | null;
  allow_empty: boolean;
}

export interface DerivationLimits {
  max_tasks: number;
  max_llm_calls: number;
  max_retrieved_records: number;
  max_visible_records: number;
  max_total_tokens: number;
  max_wall_s: number;
}

export interface DerivationTask {
  id: string;
  use: "llm";
  with: { prompt: string; output_schema: Record<string, unknown> };
}

/** The naming rules a derivation's emitted keys may be held to (emit.key_rule). */
export type KeyRule = "any" | "dotted";

export interface EmitDef {
  from: string;
  collection: string;
  type: string;
  keys: string[] | null;
  /** The form of a key the output chooses itself (KEY_RULES); "any" for any key. */
  key_rule: KeyRule;
  complete: boolean;
  review: "required" | "none";
  max_records: number | null;
}

export interface DerivationDef {
  name: string;
  description: string | null;
  trigger: TriggerDef | null;
  sources: Record<string, DerivationSource>;
  /** The alias named in the file; null falls back to models defaults.derivation (modelAlias()). */
  model: string | null;
  limits: DerivationLimits;
  tasks: DerivationTask[];
  emit: EmitDef;
}

// Triggers (../families/triggers.ts).
export type TriggerOn = "accumulator" | "write" | "read" | "cron";

export interface AccumulatorDef {
  /** The name of a score processor whose committed scores are summed. */
  metric: string;
  threshold: number;
  cooldown_s: number;
}

export interface TriggerDef {
  /** The manifest name: the standalone name, or `<derivation>.default` for an inline trigger. */
  name: string;
  /** The derivation it queues. */
  derivation: string;
  inline: boolean;
  on: TriggerOn;
  accumulator: AccumulatorDef | null;
  /** write: the collections whose writes fire it (null: the derivation's source collections). */
  collections: string[] | null;
  /** cron: the UTC cron expression. */
  cron: string | null;
  /** write and read: seconds between two queues for one entity (accumulator: its own field). */
  cooldown_s: number | null;
  description: string | null;
}

// The MCP interface (../families/mcp-interface.ts).
export type McpToolKind = "view" | "artifact" | "answer" | "record" | "ingest" | "retract";

export type McpBindingKind = "view" | "artifact" | "collection";

export interface McpToolDef {
  name: string;
  kind: McpToolKind;
  title: string | null;
  description: string;
  /** The bound definition ("name@version"); null for answer and record tools. */
  binding: { kind: McpBindingKind; reference: string } | null;
}

export interface McpInterfaceDef {
  name: string;
  version: number;
  title: string;
  instructions: string | null;
  description: string | null;
  tools: McpToolDef[];
}
