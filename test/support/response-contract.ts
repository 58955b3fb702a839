// Every reply the test suite receives is checked against the schema its route documents in
// /openapi.json (src/contract): a route answering outside its contract fails the test
// that called it.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { problemSchema } from "../../src/contract/index.js";

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(problemSchema);
const compiled = new WeakMap<object, ValidateFunction>();

/** Replies that broke their documented contract, across the test file. */
export const contractViolations: string[] = [];

function documented(responses: Record<string, object>, status: number): object | undefined {
  return responses[String(status)] ?? responses[`${String(status)[0]}xx`];
}

export function checkResponseContract(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    const schema = request.routeOptions.schema as
      | { response?: Record<string, object>; hide?: boolean }
      | undefined;
    if (!schema?.response || schema.hide || typeof payload !== "string") return payload;
    const route = `${request.method} ${request.routeOptions.url}`;
    // Routes documenting no success at all are not public API (test probes); the OpenAPI test
    // makes sure every route of the app documents one.
    if (!Object.keys(schema.response).some((status) => status.startsWith("2"))) return payload;
    const expected = documented(schema.response, reply.statusCode);
    if (!expected) {
      contractViolations.push(`${route} answered ${reply.statusCode}, which it does not document`);
      return payload;
    }
    let validate = compiled.get(expected);
    if (!validate) {
      validate = ajv.compile(expected);
      compiled.set(expected, validate);
    }
    if (!validate(JSON.parse(payload))) {
      contractViolations.push(
        `${route} ${reply.statusCode}: ${ajv.errorsText(validate.errors)} in ${payload.slice(0, 300)}`,
      );
    }
    return payload;
  });
}
