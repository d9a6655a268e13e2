import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A request the fake received, with its JSON body parsed when it had one. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  raw: Buffer;
  body: unknown;
  /** Resolves when the client closed the connection before the response ended (a cancelled stream). */
  clientGone: Promise<void>;
}

type Handler = (request: RecordedRequest, response: ServerResponse) => unknown;

/**
 * A local stand-in for the chatbot API: each test scripts the routes it needs, and the fake records every
 * request so tests can assert on headers and bodies. Unscripted routes answer a 404 envelope.
 */
export class FakeChatbotApi {
  readonly requests: RecordedRequest[] = [];
  /** Connections opened so far (keep-alive reuse shows as fewer connections than requests). */
  connections = 0;
  readonly #routes = new Map<string, Handler>();
  readonly #sockets = new Set<Socket>();
  #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(port = 0): Promise<FakeChatbotApi> {
    const fake = new FakeChatbotApi(createServer());
    await fake.#listen(port);
    return fake;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Scripts `METHOD path`. A later call for the same route replaces the handler. */
  route(method: string, path: string, handler: Handler): this {
    this.#routes.set(`${method} ${path}`, handler);
    return this;
  }

  /** The requests received for a path. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Stops listening and cuts every open connection (stalled streams included). */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Stops and starts again on the same port, with fresh connections. */
  async restart(): Promise<void> {
    const port = this.port;
    await this.close();
    this.#server = createServer();
    await this.#listen(port);
  }

  async #listen(port: number): Promise<void> {
    this.#server.on("connection", (socket) => {
      this.connections++;
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    this.#server.on("request", (req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server.listen(port, "127.0.0.1", resolve));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString("utf8")) : undefined;
    } catch {
      body = undefined;
    }
    const clientGone = new Promise<void>((resolve) => {
      res.on("close", () => {
        if (!res.writableFinished) resolve();
      });
    });
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    const request: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      query: url.searchParams,
      headers: req.headers,
      raw,
      body,
      clientGone,
    };
    this.requests.push(request);
    const handler = this.#routes.get(`${request.method} ${path}`);
    if (handler) await handler(request, res);
    else sendEnvelope(res, null, { status: 404, message: `no route ${request.method} ${path}` });
  }
}

/** Writes the API envelope; a status other than 2xx makes it a failure envelope. */
export function sendEnvelope(
  res: ServerResponse,
  data: unknown,
  options: { status?: number; message?: string; headers?: Record<string, string> } = {},
): void {
  const status = options.status ?? 200;
  const success = status >= 200 && status <= 299;
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...options.headers });
  res.end(
    JSON.stringify({
      Data: success ? data : null,
      Version: "1.0.0",
      Success: success,
      Code: status,
      Message: options.message ?? "",
    }),
  );
}

/** Writes each piece as its own chunk, pausing between them so they leave as separate TCP writes. */
export async function writeSlowly(
  res: ServerResponse,
  pieces: (string | Uint8Array)[],
  options: { contentType?: string; pauseMs?: number; end?: boolean } = {},
): Promise<void> {
  res.writeHead(200, { "content-type": options.contentType ?? "text/event-stream" });
  res.flushHeaders();
  for (const piece of pieces) {
    if (res.destroyed) return;
    res.write(piece);
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 2));
  }
  if (options.end ?? true) res.end();
}

/** The objects of a streamed answer as the spec shows them: partial `{content}` objects, then the final one. */
export function answerObjects(fragments: string[], ids = { question: 11, answer: 12, tokens: 42 }): object[] {
  return [
    ...fragments.map((content) => ({ content })),
    { QuestionID: ids.question, AnswerID: ids.answer, Answer: fragments.join(""), TotalToken: ids.tokens },
  ];
}

/** The same objects in each framing the client must accept. */
export const framings = {
  sse: (objects: object[]) => `${objects.map((o) => `data: ${JSON.stringify(o)}\n\n`).join("")}data: [DONE]\n\n`,
  ndjson: (objects: object[]) => objects.map((o) => `${JSON.stringify(o)}\n`).join(""),
  concatenated: (objects: object[]) => objects.map((o) => JSON.stringify(o)).join(""),
};
