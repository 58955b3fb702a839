// Artifacts (`artifacts/*.yaml`, an `artifacts:` list): one bounded text assembled from
// current records and view results.
//
// Fields (strict):
// - name (lowercase name), version (positive integer), active (default false), kind (`prompt`,
//   the default), lifecycle (`live`, the default, or `reviewed`), description (optional).
// - parameters (optional): the parameter model (../definition/params.ts).
// - blocks (required, at least one): map of lowercase name to either
//   a document block {entity (required text, may hold parameter placeholders), collections
//   (required unique collection names), status (active | draft, default active), max_tokens}
//   or a view block {view (required name@version), args (optional map of the view's parameter
//   names to values; string values may hold parameter placeholders), max_tokens}.
//   A block with a `view` key is a view block. max_tokens is an optional positive integer.
// - template (required text). Placeholders are `{{ name }}` (spaces optional): a block name
//   inserts that block's rendered text, a parameter name its (escaped) value. Blocks and
//   parameters share this namespace, so a block may not be named like a parameter. Every
//   placeholder names a block or a parameter, and every block appears in the template.
//   Entity and argument placeholders name parameters only; an argument that is exactly one
//   placeholder passes the parameter's typed value (as in view templates).
// - learning (optional): {block (a document block of this artifact: its active heads are the
//   use's learning target), artifact (optional name@version of the listed reviewed artifact
//   the feedback improves; default: this artifact)}. Feedback lands in `learning_signals`,
//   which the package must list.
// - snapshot (optional, the snapshot target): {collection (a listed collection name with an
//   active keyed or mixed version), type (record type, default `artifact_snapshot`)}.
// - candidate (required for lifecycle reviewed, refused for live): {derivation (a listed
//   derivation whose emit.review is `required`), keys (required unique keys; within the
//   derivation's emit.keys when it declares them)}.
import {
  type ArtifactBlock,
  type ArtifactDef,
  type CatalogIndex,
  compactParameters,
  type Def,
  missingReference,
  NAME,
  NAME_HINT,
  type ParamDecl,
  parseParameters,
  VERSIONED_REF,
  VERSIONED_REF_HINT,
  type ViewBlock,
  valueProblem,
} from "../definition/index.js";
import { parseCollectionNames, parseName, resolveCollectionName } from "./processors.js";

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** The names of the `{{ name }}` placeholders of a text, in order; a malformed one is refused. */
export function placeholders(text: string, at: Def): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = (match[1] as string).trim();
    if (!PLACEHOLDER_NAME.test(name)) at.fail(`placeholder "${match[0]}" does not hold a name`);
    names.push(name);
  }
  return names;
}

function checkParameterPlaceholders(text: string, at: Def, parameters: Record<string, ParamDecl>): void {
  for (const name of placeholders(text, at)) {
    if (!Object.hasOwn(parameters, name)) {
      at.fail(`placeholder {{${name}}} names no declared parameter`, "definition_unresolved");
    }
  }
}

/** Every string inside a value (args may be lists or mappings). */
function eachString(value: Def, visit: (text: string, at: Def) => void): void {
  if (typeof value.value === "string") visit(value.value, value);
  else if (Array.isArray(value.value)) {
    for (const item of value.list()) eachString(item, visit);
  } else if (value.value !== null && typeof value.value === "object") {
    for (const [, item] of value.entries()) eachString(item, visit);
  }
}

function parseBlock(src: Def, parameters: Record<string, ParamDecl>): ArtifactBlock {
  const isView = src.value !== null && typeof src.value === "object" && "view" in src.value;
  const maxTokens = () => src.at("max_tokens").maybe()?.integer({ min: 1 }) ?? null;
  if (isView) {
    src.fields(["view", "args", "max_tokens"], ["view"]);
    const argEntries = src.at("args").maybe()?.entries() ?? [];
    for (const [, arg] of argEntries) {
      eachString(arg, (text, at) => checkParameterPlaceholders(text, at, parameters));
    }
    // fromEntries defines own keys, so even "__proto__" stays an argument (and is refused at link).
    const args: Record<string, unknown> = Object.fromEntries(
      argEntries.map(([name, arg]) => [name, arg.value]),
    );
    return {
      kind: "view",
      view: src.at("view").string({ pattern: VERSIONED_REF, patternHint: VERSIONED_REF_HINT }),
      args,
      max_tokens: maxTokens(),
    };
  }
  src.fields(["entity", "collections", "status", "max_tokens"], ["entity", "collections"]);
  const entity = src.at("entity").string({ maxLength: 1024 });
  checkParameterPlaceholders(entity, src.at("entity"), parameters);
  return {
    kind: "document",
    entity,
    collections: parseCollectionNames(src.at("collections")),
    status:
      src
        .at("status")
        .maybe()
        ?.oneOf(["active", "draft"] as const) ?? "active",
    max_tokens: maxTokens(),
  };
}

/** The template's placeholder names, each a declared block or parameter. */
function templateNames(
  src: Def,
  blocks: Record<string, ArtifactBlock>,
  parameters: Record<string, ParamDecl>,
) {
  const names = new Set<string>();
  for (const name of placeholders(src.string(), src)) {
    if (!Object.hasOwn(blocks, name) && !Object.hasOwn(parameters, name)) {
      src.fail(`placeholder {{${name}}} names no declared block or parameter`, "definition_unresolved");
    }
    names.add(name);
  }
  return names;
}

export function parseArtifact(src: Def): ArtifactDef {
  src.fields(
    [
      "name",
      "version",
      "active",
      "kind",
      "lifecycle",
      "description",
      "parameters",
      "blocks",
      "template",
      "learning",
      "snapshot",
      "candidate",
    ],
    ["name", "version", "blocks", "template"],
  );
  const name = parseName(src.at("name"));
  const version = src.at("version").integer({ min: 1 });
  const lifecycle =
    src
      .at("lifecycle")
      .maybe()
      ?.oneOf(["live", "reviewed"] as const) ?? "live";
  const parameters = parseParameters(src.at("parameters"));
  const blocksSrc = src.at("blocks");
  const blockEntries = blocksSrc.entries();
  if (blockEntries.length === 0) blocksSrc.fail("must declare at least one block");
  const blocks: Record<string, ArtifactBlock> = {};
  for (const [blockName, blockSrc] of blockEntries) {
    if (!NAME.test(blockName)) blockSrc.fail(`block name "${blockName}" is not ${NAME_HINT}`);
    if (Object.hasOwn(parameters, blockName)) {
      blockSrc.fail(
        `block "${blockName}" has the name of a parameter; placeholders could not tell them apart`,
        "definition_duplicate",
      );
    }
    blocks[blockName] = parseBlock(blockSrc, parameters);
  }
  const used = templateNames(src.at("template"), blocks, parameters);
  for (const [blockName, blockSrc] of blockEntries) {
    if (!used.has(blockName))
      blockSrc.fail(`block "${blockName}" is not used by the template ({{${blockName}}})`);
  }
  return {
    name,
    version,
    active: src.at("active").maybe()?.boolean() ?? false,
    kind:
      src
        .at("kind")
        .maybe()
        ?.oneOf(["prompt"] as const) ?? "prompt",
    lifecycle,
    description: src.at("description").maybe()?.string() ?? null,
    parameters,
    blocks,
    template: src.at("template").value as string,
    learning: parseLearning(src.at("learning"), blocks),
    snapshot: parseSnapshot(src.at("snapshot")),
    candidate: parseCandidate(src.at("candidate"), lifecycle),
  };
}

function parseLearning(src: Def, blocks: Record<string, ArtifactBlock>): ArtifactDef["learning"] {
  if (!src.present) return null;
  src.fields(["block", "artifact"], ["block"]);
  const block = src.at("block").string();
  const target = Object.hasOwn(blocks, block) ? blocks[block] : undefined;
  if (!target) return src.at("block").fail(`no block "${block}" in this artifact`, "definition_unresolved");
  if (target.kind !== "document") {
    src
      .at("block")
      .fail(`block "${block}" is a view block; a learning target reads active heads of a document block`);
  }
  const artifact = src
    .at("artifact")
    .maybe()
    ?.string({ pattern: VERSIONED_REF, patternHint: VERSIONED_REF_HINT });
  return { block, artifact: artifact ?? null };
}

function parseSnapshot(src: Def): ArtifactDef["snapshot"] {
  if (!src.present) return null;
  src.fields(["collection", "type"], ["collection"]);
  return {
    collection: parseName(src.at("collection")),
    type: src.at("type").maybe()?.string({ maxLength: 256 }) ?? "artifact_snapshot",
  };
}

function parseCandidate(src: Def, lifecycle: ArtifactDef["lifecycle"]): ArtifactDef["candidate"] {
  if (lifecycle === "live") {
    if (src.present) src.fail("only a reviewed artifact names a candidate derivation");
    return null;
  }
  src.fields(["derivation", "keys"], ["derivation", "keys"]);
  return {
    derivation: parseName(src.at("derivation")),
    keys: src.at("keys").strings({ min: 1, item: { maxLength: 256 } }),
  };
}

/**
 * A view block's arguments against the view's parameter declarations (../definition/params.ts):
 * a literal value must satisfy its declaration (type and every constraint, as the view call will check);
 * a whole-value placeholder passes an artifact parameter, which must have the same type (an
 * integer may feed a number) and be present whenever the view parameter is required; a
 * string with placeholders inside becomes text, so the view parameter must be a string.
 */
function linkViewBlock(
  block: ViewBlock,
  at: Def,
  index: CatalogIndex,
  parameters: Record<string, ParamDecl>,
): void {
  const view = index.views.get(block.view);
  if (!view) missingReference(index, "views", block.view, at.at("view"));
  const declared = view.def.parameters;
  for (const [name, value] of Object.entries(block.args)) {
    const argAt = at.at("args").at(name);
    if (!Object.hasOwn(declared, name)) argAt.fail(`view ${block.view} has no parameter "${name}"`);
    const decl = declared[name] as ParamDecl;
    const whole = typeof value === "string" ? WHOLE_PLACEHOLDER.exec(value)?.[1] : undefined;
    if (whole !== undefined) {
      const source = parameters[whole] as ParamDecl;
      // Every integer is a number; any other pair of types never matches.
      if (source.type !== decl.type && !(source.type === "integer" && decl.type === "number")) {
        argAt.fail(
          `artifact parameter "${whole}" is a ${source.type}; view parameter "${name}" takes a ${decl.type}`,
        );
      }
      // An omitted argument removes the key (as in view templates), which a required view
      // parameter refuses on every such render.
      if (decl.required && !source.required && source.default === undefined) {
        argAt.fail(
          `view parameter "${name}" is required, but artifact parameter "${whole}" is optional without a default`,
        );
      }
    } else if (typeof value === "string" && placeholders(value, argAt).length > 0) {
      if (decl.type !== "string") {
        argAt.fail(`text with placeholders is a string; view parameter "${name}" takes a ${decl.type}`);
      }
    } else {
      const problem = valueProblem(decl, value);
      if (problem) argAt.fail(`view parameter "${name}" ${problem}`);
    }
  }
  for (const [name, decl] of Object.entries(declared)) {
    if (decl.required && !Object.hasOwn(block.args, name)) {
      at.at("args").fail(`view ${block.view} requires the parameter "${name}"`);
    }
  }
}

export function linkArtifact(def: ArtifactDef, src: Def, index: CatalogIndex): void {
  for (const [name, block] of Object.entries(def.blocks)) {
    const at: Def = src.at("blocks").at(name);
    if (block.kind === "view") linkViewBlock(block, at, index, def.parameters);
    else {
      block.collections.forEach((c, i) => {
        resolveCollectionName(index, c, at.at("collections").at(i));
      });
    }
  }
  if (def.learning) {
    resolveCollectionName(index, "learning_signals", src.at("learning"));
    const target = def.learning.artifact;
    if (target) {
      const at: Def = src.at("learning").at("artifact");
      const artifact = index.artifacts.get(target);
      if (!artifact) missingReference(index, "artifacts", target, at);
      if (artifact.def.lifecycle !== "reviewed") at.fail(`artifact ${target} is not a reviewed artifact`);
    }
  }
  if (def.snapshot) {
    const at: Def = src.at("snapshot").at("collection");
    const active = resolveCollectionName(index, def.snapshot.collection, at).find(
      (entry) => entry.def.active,
    );
    if (!active)
      at.fail(`collection "${def.snapshot.collection}" has no active version listed in the package`);
    if (active.def.mode === "event") {
      at.fail(
        `collection "${def.snapshot.collection}" is an event collection; a snapshot target is keyed or mixed`,
      );
    }
  }
  if (def.candidate) {
    const at: Def = src.at("candidate");
    const derivation = index.derivations.get(def.candidate.derivation);
    if (!derivation) missingReference(index, "derivations", def.candidate.derivation, at.at("derivation"));
    const emit = derivation.def.emit;
    if (emit.review !== "required") {
      at.at("derivation").fail(
        `derivation "${def.candidate.derivation}" does not emit for review (emit.review: required)`,
      );
    }
    def.candidate.keys.forEach((key, i) => {
      if (emit.keys && !emit.keys.includes(key)) {
        at.at("keys")
          .at(i)
          .fail(`derivation "${def.candidate?.derivation}" never emits key "${key}" (emit.keys)`);
      }
    });
  }
}

/** The discovery entry of an artifact (`GET /artifacts`): no template text. */
export function artifactSummary(def: ArtifactDef) {
  const parameters = compactParameters(def.parameters);
  const blocks = Object.fromEntries(
    Object.entries(def.blocks).map(([name, block]) => [
      name,
      block.kind === "view"
        ? { kind: "view", view: block.view, max_tokens: block.max_tokens }
        : {
            kind: "document",
            collections: [...block.collections],
            status: block.status,
            max_tokens: block.max_tokens,
          },
    ]),
  );
  return {
    name: def.name,
    version: def.version,
    active: def.active,
    kind: def.kind,
    lifecycle: def.lifecycle,
    description: def.description,
    parameters,
    blocks,
    learning: def.learning ? { ...def.learning } : null,
    snapshot: def.snapshot !== null,
    candidate: def.candidate ? { derivation: def.candidate.derivation, keys: [...def.candidate.keys] } : null,
  };
}
