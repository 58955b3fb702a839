// GET /context (docs/api.md "GET /context"): an entity's state, relevant and recent records packed
// into a token budget. The one entry point from outside src/context.
export { assembleContext, type ContextDeps, type ContextQuery } from "./assemble.js";
