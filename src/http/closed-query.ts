import type { FastifyInstance, RouteOptions } from "fastify";
import { AppError } from "../platform/errors.js";
import { printable } from "../platform/input.js";
import { isStaticPath } from "./auth.js";

/**
 * Routes whose query parameters are only known per request: GET /artifacts/{name} takes the
 * artifact's declared parameters, and the artifact refuses any other name itself (422
 * request_schema naming it).
 */
const OPEN_QUERY_URLS = new Set(["/artifacts/:name"]);

function exempt(route: RouteOptions): boolean {
  const methods = [route.method].flat();
  // A CORS preflight repeats the query string of the request it asks about.
  if (methods.includes("OPTIONS")) return true;
  // The reference page's files (@fastify/swagger-ui) and the console's pages, whose query string
  // is read by the browser.
  if (isStaticPath(route.url)) return true;
  return OPEN_QUERY_URLS.has(route.url) && methods.every((m) => m === "GET" || m === "HEAD");
}

/**
 * Every route refuses query parameters it does not define with 422 request_schema naming each
 * (`querystring.<name>`), as GET /search always did, so a misspelt or unsupported parameter
 * (`POST /records?dry_run=true`) never runs as if it were absent. A route without a query schema
 * gets an empty closed one (`properties: {}`, so the OpenAPI document lists no parameter); a
 * route with one has it closed. Validation runs after authentication, so 401 still comes first.
 */
export function closeQueryStrings(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    if (exempt(route)) return;
    route.schema ??= {};
    const declared = route.schema.querystring as Record<string, unknown> | undefined;
    if (declared === undefined) {
      route.schema.querystring = { type: "object", properties: {}, additionalProperties: false };
      return;
    }
    if (declared.additionalProperties === false) return;
    if (typeof declared.properties !== "object" || declared.properties === null) {
      throw new Error(`${route.url}: a querystring schema must list its parameters under properties`);
    }
    route.schema.querystring = { ...declared, additionalProperties: false };
  });
}

/** A query component as text (`+` is a space), or undefined when it is not valid percent-encoded UTF-8. */
function decoded(component: string): string | undefined {
  try {
    return decodeURIComponent(component.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
}

/** The field path of the first parameter whose name or value does not decode. */
function malformedParameter(query: string): string | undefined {
  for (const pair of query.split("&")) {
    const at = pair.indexOf("=");
    const name = decoded(at === -1 ? pair : pair.slice(0, at));
    if (name === undefined) return "querystring";
    if (at !== -1 && decoded(pair.slice(at + 1)) === undefined) return `querystring.${printable(name)}`;
  }
  return undefined;
}

/**
 * A query string must be validly percent-encoded UTF-8, as the path must be (the router answers
 * 400 bad_request for a path that is not): Fastify's parser keeps a malformed escape (`%FF`, a
 * lone `%`) as text, and a search would run on it. Refused with 400 bad_request naming the
 * parameter, in preParsing: after authentication and the rate limit, before anything is read.
 */
export function refuseMalformedQueries(app: FastifyInstance): void {
  app.addHook("preParsing", async (request) => {
    const at = request.url.indexOf("?");
    const path = at === -1 ? undefined : malformedParameter(request.url.slice(at + 1));
    if (path !== undefined) {
      throw new AppError("bad_request", "the query string is not validly percent-encoded UTF-8", {
        errors: [{ path, message: "is not validly percent-encoded UTF-8" }],
      });
    }
  });
}
