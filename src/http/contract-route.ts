// contractRoute(): the Fastify route options of a route of src/contract (method, path, schemas).
// The schema object is copied for each app: Fastify marks it and src/http/app.ts adds problem
// details to it when the route is registered, and the contract's own object stays as written.
import type { RouteContract } from "../contract/index.js";

export function contractRoute(route: RouteContract) {
  return { method: route.method, url: route.url, schema: { ...route.schema } };
}
