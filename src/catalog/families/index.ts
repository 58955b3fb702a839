// The definition families' parsers and link steps: collections, search profiles, models,
// processors, derivations, triggers, views, artifacts and the MCP interface.
export { artifactSummary, linkArtifact, parseArtifact } from "./artifacts.js";
export { contractHash, fieldValue, linkCollection, parseCollection } from "./collections.js";
export {
  derivationSummary,
  inlineTrigger,
  KEY_RULES,
  linkDerivation,
  modelAlias,
  parseDerivation,
} from "./derivations.js";
export { linkMcpInterface, parseMcpInterface } from "./mcp-interface.js";
export { LOCAL_DIMENSIONS, LOCAL_MODEL, parseModels } from "./models.js";
export { linkProcessor, PROCESSOR_KINDS, parseProcessor, processorSummary } from "./processors.js";
export { linkSearchProfile, parseSearchProfile } from "./search-profiles.js";
export { linkTrigger, parseCron, parseTrigger, TRIGGER_ON, triggerSummary } from "./triggers.js";
export { fillTemplate, linkView, parseView, valueText, viewDiscoveryEntry, viewSearch } from "./views.js";
