// Every refusal over HTTP as problem details (src/contract/problem.ts): what a thrown error maps
// to, the headers a refusal carries, and the refusals Fastify and Node's parser make themselves.
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { PROBLEM_CONTENT_TYPE, problemBody } from "../contract/index.js";
import { AppError, validationError } from "../platform/errors.js";
import { toFieldErrors } from "../platform/schema.js";

// Connection-level failures of the database: the service is unavailable, not broken.
const DB_DOWN_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EPIPE",
  "EHOSTUNREACH",
]);
// SQLSTATE classes 08 (connection exception) and 57P0x (operator intervention: shutdown).
const DB_DOWN_SQLSTATE = /^(08|57P0)/;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (DB_DOWN_ERRNOS.has(code) || DB_DOWN_SQLSTATE.test(code))) return true;
  return /Connection terminated|not queryable|PGlite is closed/i.test(error.message);
}

/**
 * Conflicts a retry resolves, the transaction having written nothing: a serialization failure or
 * a deadlock (SQLSTATE class 40), and a record seq taken twice. The seq counter's row lock keeps
 * a workspace's writers in turn, but on Citus a writer caught in a shard's switch-over can read
 * the counter where it was moved from: the unique key refuses its rows, and a retry takes the next seq.
 */
export function isTransientConflict(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  if (typeof code === "string" && code.startsWith("40")) return true;
  return (
    code === "23505" &&
    typeof constraint === "string" &&
    /^records_workspace_id_seq_key(_\d+)?$/.test(constraint)
  );
}

/**
 * node-postgres's pool gives up waiting for a free connection with this message; a server that
 * does not answer fails the connection attempt itself ("Connection terminated due to connection
 * timeout"), so the two are told apart.
 */
export function isPoolExhausted(error: unknown): boolean {
  return error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message);
}

/** Seconds a client should wait before retrying a 503 database_busy or database_unavailable. */
const BUSY_RETRY_AFTER_S = 1;
/** A backlog of thousands of jobs takes the workers a while: ask again in half a minute. */
const QUEUE_RETRY_AFTER_S = 30;

/** Maps anything thrown while serving a request to an AppError a client may see. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const context = fastifyError.validationContext === "body" ? "" : (fastifyError.validationContext ?? "");
    return validationError(
      `the request ${fastifyError.validationContext ?? "input"} is invalid`,
      toFieldErrors(fastifyError.validation as never, context),
    );
  }
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new AppError("payload_too_large", "the request body exceeds the size limit");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError("unsupported_media_type", "send the request body as application/json");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return validationError("the request body is empty", [{ path: "", message: "a JSON body is required" }]);
  }
  if (isPoolExhausted(error)) {
    return new AppError("database_busy", "every database connection is busy; retry shortly");
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError("database_unavailable", "the database is unavailable; try again shortly");
  }
  if (isTransientConflict(error)) {
    return new AppError("database_busy", "the request met concurrent work in the database; retry shortly");
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 400) {
    // Malformed JSON and other unreadable requests.
    return validationError("the request could not be read", [{ path: "", message: fastifyError.message }]);
  }
  if (status === 404) return new AppError("not_found", "no such resource");
  if (status === 413) return new AppError("payload_too_large", "the request body exceeds the size limit");
  if (status > 400 && status < 500) {
    return new AppError("request_schema", fastifyError.message, {}, status);
  }
  return new AppError("internal", "the server failed to complete the request");
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.status === 401) reply.header("WWW-Authenticate", 'Bearer realm="engram"');
  if (error.code === "database_busy" || error.code === "database_unavailable") {
    reply.header("Retry-After", String(BUSY_RETRY_AFTER_S));
  }
  if (error.code === "queue_full") reply.header("Retry-After", String(QUEUE_RETRY_AFTER_S));
  if (error.code === "database_busy") reply.server.metrics?.databaseBusy();
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(problemBody(error));
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  // A refusal the registry names (a model that failed, a busy database) is expected: a warning
  // with its code and detail. Anything else is a fault of the server: an error with its stack.
  if (error instanceof AppError && appError.status >= 500 && appError.code !== "internal") {
    request.log.warn({ code: appError.code, detail: appError.message }, "request refused");
  } else if (appError.status >= 500) {
    request.log.error({ err: error }, "request failed");
  }
  return sendProblem(reply, appError);
}

/** Fastify's router refusals (frameworkErrors): a URL it cannot decode, a path parameter too long. */
export function handleFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return sendProblem(reply, new AppError("uri_too_long", "a path segment is longer than 100 characters"));
  }
  if (error.code === "FST_ERR_BAD_URL") {
    return sendProblem(reply, new AppError("bad_request", "the URL path is not validly percent-encoded"));
  }
  return sendProblem(reply, toAppError(error));
}

/**
 * Requests Node's HTTP parser refuses before any route sees them (a header block or URL over
 * 16 KB, a malformed request, a client too slow to send one), written straight to the socket.
 */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const problem =
    error.code === "HPE_HEADER_OVERFLOW"
      ? new AppError("headers_too_large", "the request line and headers exceed 16 KB")
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? new AppError("request_timeout", "the request was not received in time")
        : new AppError("bad_request", "the HTTP request is malformed");
  const body = JSON.stringify(problemBody(problem));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
