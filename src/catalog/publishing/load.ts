// Loads an uploaded catalog: parse every file, select the requested package, link every listed
// definition against the selection, and hash the result. Pure: no database, no clock.
import { hashJson } from "../../platform/hash.js";
import {
  type ArtifactDef,
  type CatalogIndex,
  type CollectionDef,
  DEFAULT_RANK_CONF,
  DefinitionError,
  type DerivationDef,
  type Entry,
  type McpInterfaceDef,
  type ModelsConf,
  type PackageManifest,
  type ProcessorDef,
  parseRankConf,
  type RankConf,
  type ReferenceFamily,
  ref,
  type SearchProfileDef,
  type TriggerDef,
  type ViewDef,
} from "../definition/index.js";
import {
  contractHash,
  inlineTrigger,
  linkArtifact,
  linkCollection,
  linkDerivation,
  linkMcpInterface,
  linkProcessor,
  linkSearchProfile,
  linkTrigger,
  linkView,
  parseArtifact,
  parseCollection,
  parseDerivation,
  parseMcpInterface,
  parseModels,
  parseProcessor,
  parseSearchProfile,
  parseTrigger,
  parseView,
} from "../families/index.js";
import { type Family, parseFiles, type SourceFile } from "./files.js";
import { parseManifest } from "./manifest.js";

/** Every definition of the upload, listed or not, by family and identity. */
interface Parsed {
  packages: Map<string, Entry<PackageManifest>>;
  collections: Map<string, Entry<CollectionDef>>;
  views: Map<string, Entry<ViewDef>>;
  artifacts: Map<string, Entry<ArtifactDef>>;
  mcp: Map<string, Entry<McpInterfaceDef>>;
  processors: Map<string, Entry<ProcessorDef>>;
  derivations: Map<string, Entry<DerivationDef>>;
  triggers: Map<string, Entry<TriggerDef>>;
  search_profiles: Map<string, Entry<SearchProfileDef>>;
  models: Entry<ModelsConf> | undefined;
  rank: Entry<RankConf> | undefined;
}

export interface LoadedCatalog {
  index: CatalogIndex;
  /** "name@semver" */
  package: string;
  catalogHash: string;
  /** Hash of the selected package manifest (GET /tools, artifact manifests). */
  packageHash: string;
  /** Hash of every listed definition by "family:id" ("collections:customer_events@1"). */
  hashes: Record<string, string>;
  /** Contract hash of every listed collection version by "name@version" (records keep it). */
  contracts: Record<string, string>;
  /** Per uploaded file path: the hash of its parsed content. */
  files: Record<string, string>;
}

/** The installed catalog of a workspace, with the install it was loaded from. */
export interface InstalledCatalog extends LoadedCatalog {
  installId: string;
}

function register<T>(map: Map<string, Entry<T>>, id: string, entry: Entry<T>, family: string): void {
  const existing = map.get(id);
  if (existing) {
    entry.src.fail(`${family} "${id}" is also defined in ${existing.src.file}`, "definition_duplicate");
  }
  map.set(id, entry);
}

function parseAll(sources: SourceFile[]): Parsed {
  const parsed: Parsed = {
    packages: new Map(),
    collections: new Map(),
    views: new Map(),
    artifacts: new Map(),
    mcp: new Map(),
    processors: new Map(),
    derivations: new Map(),
    triggers: new Map(),
    search_profiles: new Map(),
    models: undefined,
    rank: undefined,
  };
  const listed = (file: SourceFile, key: string) => file.root.at(key).list();
  for (const file of sources) {
    const handlers: Record<Family, () => void> = {
      packages: () => {
        const def = parseManifest(file.root);
        register(parsed.packages, `${def.name}@${def.version}`, { def, src: file.root }, "package");
      },
      collections: () => {
        for (const src of listed(file, "collections")) {
          const def = parseCollection(src);
          register(parsed.collections, ref(def.name, def.version), { def, src }, "collection");
        }
      },
      views: () => {
        for (const src of listed(file, "views")) {
          const def = parseView(src);
          register(parsed.views, ref(def.name, def.version), { def, src }, "view");
        }
      },
      artifacts: () => {
        for (const src of listed(file, "artifacts")) {
          const def = parseArtifact(src);
          register(parsed.artifacts, ref(def.name, def.version), { def, src }, "artifact");
        }
      },
      mcp: () => {
        const def = parseMcpInterface(file.root);
        register(parsed.mcp, ref(def.name, def.version), { def, src: file.root }, "MCP interface");
      },
      processors: () => {
        for (const src of listed(file, "processors")) {
          const def = parseProcessor(src);
          // Processors and derivations share one namespace: manifests list both under processors.
          if (parsed.derivations.has(def.name))
            src.fail(`"${def.name}" is also a derivation`, "definition_duplicate");
          register(parsed.processors, def.name, { def, src }, "processor");
        }
      },
      derivations: () => {
        for (const src of listed(file, "derivations")) {
          const def = parseDerivation(src);
          if (parsed.processors.has(def.name))
            src.fail(`"${def.name}" is also a processor`, "definition_duplicate");
          register(parsed.derivations, def.name, { def, src }, "derivation");
        }
      },
      triggers: () => {
        for (const src of listed(file, "triggers")) {
          const def = parseTrigger(src);
          register(parsed.triggers, def.name, { def, src }, "trigger");
        }
      },
      search_profiles: () => {
        for (const src of listed(file, "search_profiles")) {
          const def = parseSearchProfile(src);
          register(parsed.search_profiles, def.name, { def, src }, "search profile");
        }
      },
      models: () => {
        if (parsed.models) file.root.fail("a second models file", "definition_duplicate");
        parsed.models = { def: parseModels(file.root), src: file.root };
      },
      rank: () => {
        if (parsed.rank) file.root.fail("a second rank file", "definition_duplicate");
        parsed.rank = { def: parseRankConf(file.root), src: file.root };
      },
    };
    handlers[file.family]();
  }
  for (const [name, entry] of parsed.derivations) {
    const inline = inlineTrigger(entry);
    if (inline) register(parsed.triggers, `${name}.default`, inline, "trigger");
  }
  return parsed;
}

/** Resolves the manifest's references into the listed selection. */
function select<T>(
  all: Map<string, Entry<T>>,
  ids: string[],
  manifest: Entry<PackageManifest>,
  key: string,
): Map<string, Entry<T>> {
  const out = new Map<string, Entry<T>>();
  ids.forEach((id, i) => {
    const entry = all.get(id);
    if (!entry)
      manifest.src.at(key).at(i).fail(`no definition "${id}" in the upload`, "definition_unresolved");
    else out.set(id, entry);
  });
  return out;
}

function buildIndex(parsed: Parsed, packageRef: string): CatalogIndex {
  const manifest = parsed.packages.get(packageRef);
  if (!manifest) {
    const known = [...parsed.packages.keys()].join(", ") || "none";
    throw new DefinitionError(
      "package_not_found",
      "packages/",
      [],
      `no manifest for ${packageRef} (found: ${known})`,
    );
  }
  if (!parsed.models) {
    throw new DefinitionError(
      "definition_invalid",
      "conf/models.yaml",
      [],
      "every catalog needs conf/models.yaml with an embedding alias",
    );
  }
  const m = manifest.def;
  const processorIds = m.processors.filter((name) => parsed.processors.has(name));
  const derivationIds = m.processors.filter((name) => parsed.derivations.has(name));
  m.processors.forEach((name, i) => {
    if (!parsed.processors.has(name) && !parsed.derivations.has(name)) {
      manifest.src
        .at("processors")
        .at(i)
        .fail(`no processor or derivation "${name}"`, "definition_unresolved");
    }
  });
  const defined = Object.fromEntries(
    (
      [
        "collections",
        "views",
        "artifacts",
        "processors",
        "derivations",
        "triggers",
        "search_profiles",
        "mcp",
      ] as const
    ).map((family) => [family, new Set(parsed[family].keys())]),
  ) as Record<ReferenceFamily, Set<string>>;
  const mcp = m.mcp ? select(parsed.mcp, [m.mcp], manifest, "mcp") : new Map();
  return {
    manifest,
    collections: select(parsed.collections, m.collections, manifest, "collections"),
    searchProfiles: select(
      parsed.search_profiles,
      [...m.search_profiles, ...m.optional_search_profiles],
      manifest,
      "search_profiles",
    ),
    models: parsed.models,
    rank: parsed.rank?.def ?? DEFAULT_RANK_CONF,
    processors: select(parsed.processors, processorIds, manifest, "processors"),
    derivations: select(parsed.derivations, derivationIds, manifest, "processors"),
    triggers: select(parsed.triggers, m.triggers, manifest, "triggers"),
    views: select(parsed.views, m.views, manifest, "views"),
    artifacts: select(parsed.artifacts, m.artifacts, manifest, "artifacts"),
    mcp: [...mcp.values()][0] ?? null,
    defined,
  };
}

/** At most one active version per name among the listed definitions. */
function checkSingleActive(
  entries: Map<string, Entry<{ name: string; active: boolean }>>,
  family: string,
): void {
  const active = new Map<string, Entry<{ name: string; active: boolean }>>();
  for (const entry of entries.values()) {
    if (!entry.def.active) continue;
    const other = active.get(entry.def.name);
    if (other)
      entry.src
        .at("active")
        .fail(`a second active version of ${family} "${entry.def.name}"`, "definition_duplicate");
    active.set(entry.def.name, entry);
  }
}

function link(index: CatalogIndex): void {
  for (const entry of index.searchProfiles.values()) linkSearchProfile(entry.def, entry.src, index);
  for (const entry of index.collections.values()) linkCollection(entry.def, entry.src, index);
  for (const entry of index.processors.values()) linkProcessor(entry.def, entry.src, index);
  for (const entry of index.derivations.values()) linkDerivation(entry.def, entry.src, index);
  for (const entry of index.triggers.values()) linkTrigger(entry.def, entry.src, index);
  for (const entry of index.views.values()) linkView(entry.def, entry.src, index);
  for (const entry of index.artifacts.values()) linkArtifact(entry.def, entry.src, index);
  if (index.mcp) linkMcpInterface(index.mcp.def, index.mcp.src, index);
  checkSingleActive(index.collections, "collection");
  checkSingleActive(index.views, "view");
  // Artifacts are addressed by name alone (POST /artifacts/{name}/render), like views.
  checkSingleActive(index.artifacts, "artifact");
  index.manifest.def.retentions.forEach((policy, i) => {
    const collection = index.collections.get(policy.collection);
    if (collection && collection.def.mode === "event") {
      index.manifest.src
        .at("retentions")
        .at(i)
        .at("collection")
        .fail(`retention needs a keyed or mixed collection; ${policy.collection} is an event collection`);
    }
  });
}

function definitionHashes(index: CatalogIndex): Record<string, string> {
  const hashes: Record<string, string> = {};
  const families: [string, Map<string, Entry<unknown>>][] = [
    ["collections", index.collections],
    ["search_profiles", index.searchProfiles],
    ["processors", index.processors],
    ["derivations", index.derivations],
    ["triggers", index.triggers],
    ["views", index.views],
    ["artifacts", index.artifacts],
  ];
  for (const [family, entries] of families) {
    for (const [id, entry] of entries) hashes[`${family}:${id}`] = hashJson(entry.def);
  }
  if (index.mcp) hashes[`mcp:${ref(index.mcp.def.name, index.mcp.def.version)}`] = hashJson(index.mcp.def);
  hashes["conf:models"] = hashJson(index.models.def);
  hashes["conf:rank"] = hashJson(index.rank);
  return hashes;
}

/** Each uploaded file's normalized content hash: YAML formatting never changes it. */
function fileHashes(sources: SourceFile[]): Record<string, string> {
  return Object.fromEntries(sources.map((file) => [file.path, hashJson(file.root.value ?? null)]));
}

export function loadCatalog(files: Record<string, string>, packageRef: string): LoadedCatalog {
  const sources = parseFiles(files);
  const index = buildIndex(parseAll(sources), packageRef);
  link(index);
  const hashes = definitionHashes(index);
  return {
    index,
    package: packageRef,
    catalogHash: hashJson({ package: packageRef, definitions: hashes }),
    packageHash: hashJson(index.manifest.def),
    hashes,
    contracts: Object.fromEntries([...index.collections].map(([id, entry]) => [id, contractHash(entry.def)])),
    files: fileHashes(sources),
  };
}
