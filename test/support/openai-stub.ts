// A local stand-in for an OpenAI-compatible server (node:http on 127.0.0.1, a free port): enough
// of POST /v1/embeddings and POST /v1/chat/completions to test the openai adapter without a
// network. Replies are programmable per route (a queue of one-shot replies, then a default
// handler) and every request is recorded.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when the body was not JSON). */
  body: any;
}

export interface StubReply {
  status?: number;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent verbatim with content-type application/json (for malformed bodies). */
  raw?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (slow provider). */
  delayMs?: number;
}

export type StubRoute = "embeddings" | "chat";
export type StubHandler = (request: StubRequest) => StubReply;

export interface OpenAIStub {
  /** The base_url to configure: http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: StubRequest[];
  /** One-shot replies consumed in order before the route's handler answers. */
  enqueue(route: StubRoute, ...replies: StubReply[]): void;
  /** Replaces a route's default handler. */
  handle(route: StubRoute, handler: StubHandler): void;
  /** Clears recorded requests and queues and restores the default handlers. */
  reset(): void;
  close(): Promise<void>;
}

/** A chat completion whose first choice says `content`. */
export function chatReply(
  content: string | null,
  extra: { usage?: unknown; refusal?: string } = {},
): StubReply {
  return {
    json: {
      id: "chatcmpl-stub",
      object: "chat.completion",
      created: 0,
      model: "stub",
      choices: [
        {
          index: 0,
          finish_reason: "stop",
          message: { role: "assistant", content, refusal: extra.refusal ?? null },
        },
      ],
      ...(extra.usage === undefined ? {} : { usage: extra.usage }),
    },
  };
}

/** An embeddings reply with the given vectors. */
export function embeddingsReply(vectors: number[][]): StubReply {
  return {
    json: {
      object: "list",
      model: "stub",
      data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
      usage: { prompt_tokens: 1, total_tokens: 1 },
    },
  };
}

/**
 * An HTTP error reply. `retry-after-ms: 1` keeps the openai client's retries (it honors that
 * header) from sleeping its default half second and more.
 */
export function errorReply(status: number, message = "stub failure"): StubReply {
  return {
    status,
    json: { error: { message, type: "server_error", code: null } },
    headers: { "retry-after-ms": "1" },
  };
}

/** Default embeddings: `dimensions` (from the request, else 4) values of 0.5 per input. */
const defaultEmbeddings: StubHandler = (request) => {
  const inputs: unknown[] = Array.isArray(request.body?.input) ? request.body.input : [request.body?.input];
  const dimensions = typeof request.body?.dimensions === "number" ? request.body.dimensions : 4;
  return embeddingsReply(inputs.map(() => new Array(dimensions).fill(0.5)));
};

const defaultChat: StubHandler = () => chatReply("{}", { usage: { prompt_tokens: 3, completion_tokens: 1 } });

const ROUTES: Record<string, StubRoute> = {
  "/v1/embeddings": "embeddings",
  "/v1/chat/completions": "chat",
};

/**
 * Every stub's base URL this test process started: testConfig lists them in MODEL_ENDPOINTS, as
 * an operator lists the model servers a deployment may reach. Tests of the policy itself set
 * MODEL_ENDPOINTS explicitly.
 */
export const stubEndpoints = new Set<string>();

export async function startOpenAIStub(): Promise<OpenAIStub> {
  const requests: StubRequest[] = [];
  const queues: Record<StubRoute, StubReply[]> = { embeddings: [], chat: [] };
  const handlers: Record<StubRoute, StubHandler> = { embeddings: defaultEmbeddings, chat: defaultChat };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const path = (req.url ?? "/").split("?")[0] as string;
      const request: StubRequest = { method: req.method ?? "GET", path, headers: req.headers, body };
      requests.push(request);
      const route = req.method === "POST" ? ROUTES[path] : undefined;
      const reply: StubReply = route
        ? (queues[route].shift() ?? handlers[route](request))
        : { status: 404, json: { error: { message: `no route ${req.method} ${path}` } } };
      const send = () => {
        if (res.destroyed) return;
        const payload = reply.raw ?? JSON.stringify(reply.json ?? {});
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
        res.end(payload);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  stubEndpoints.add(baseUrl);

  return {
    baseUrl,
    requests,
    enqueue(route, ...replies) {
      queues[route].push(...replies);
    },
    handle(route, handler) {
      handlers[route] = handler;
    },
    reset() {
      requests.length = 0;
      queues.embeddings.length = 0;
      queues.chat.length = 0;
      handlers.embeddings = defaultEmbeddings;
      handlers.chat = defaultChat;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** A base_url nothing listens on (a port just released): connections are refused. */
export async function refusedBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  stubEndpoints.add(baseUrl);
  return baseUrl;
}
