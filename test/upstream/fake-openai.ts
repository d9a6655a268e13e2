import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A chat-completions request the fake received. */
export interface CompletionRequest {
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** Resolves when the client closed the connection before the response ended (a cancelled generation). */
  clientGone: Promise<void>;
}

/** A file part of a multipart body. */
export interface UploadedFile {
  filename: string | undefined;
  contentType: string | undefined;
  bytes: Buffer;
}

/** An audio-transcription request the fake received: its text fields (model, response_format…) and its file. */
export interface TranscriptionRequest {
  headers: IncomingMessage["headers"];
  fields: Record<string, string>;
  file: UploadedFile | undefined;
}

/** How the fake answers the next transcription requests. */
export type TranscriptionBehaviour =
  /** `{text}`, as OpenAI's `response_format=json`. */
  | { kind: "text"; text: string }
  /** Answers `status` with a JSON body. */
  | { kind: "status"; status: number; body: unknown }
  /** Never sends response headers. */
  | { kind: "hang" };

/** How the fake answers the next requests. */
export type Behaviour =
  /** Streams the fragments as OpenAI does; `usage` null sends no usage chunk; `finish` false ends without stop. */
  | { kind: "stream"; fragments: string[]; usage?: number | null; finish?: boolean; pauseMs?: number }
  /** Streams `after` fragments, then an error event, as OpenAI and vLLM do for a failure mid-generation. */
  | { kind: "error-event"; after: number; message: string }
  /** Answers `status` with a JSON body (OpenAI's `{error: {message}}` or anything else). */
  | { kind: "status"; status: number; body: unknown }
  /** Streams `after` fragments, then destroys the socket. */
  | { kind: "cut"; after: number }
  /** Streams `after` fragments, then stays silent with the response open. */
  | { kind: "stall"; after: number }
  /** Never sends response headers. */
  | { kind: "hang" };

/** The parts of a multipart/form-data body, split at the boundary of its Content-Type. */
function multipartParts(body: Buffer, contentType: string | undefined): { headers: string; content: Buffer }[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  if (!boundary) throw new Error(`not a multipart body: ${contentType}`);
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: { headers: string; content: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  // Each part is "\r\n<headers>\r\n\r\n<content>\r\n" up to the next delimiter; "--" after one ends the body.
  while (at !== -1 && body.subarray(at + delimiter.length, at + delimiter.length + 2).toString() !== "--") {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next === -1) throw new Error("a multipart body without its closing delimiter");
    const part = body.subarray(at + delimiter.length + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    parts.push({ headers: part.subarray(0, split).toString("utf8"), content: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

/** The fields and the file of a transcription request. */
function transcriptionForm(body: Buffer, contentType: string | undefined) {
  const fields: Record<string, string> = {};
  let file: UploadedFile | undefined;
  for (const { headers, content } of multipartParts(body, contentType)) {
    const name = /name="([^"]*)"/.exec(headers)?.[1] ?? "";
    const filename = /filename="([^"]*)"/.exec(headers)?.[1];
    if (filename === undefined) fields[name] = content.toString("utf8");
    else file = { filename, contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1], bytes: content };
  }
  return { fields, file };
}

const chunk = (delta: object, finishReason: string | null = null) => ({
  id: "chatcmpl-fake",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "fake-model",
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

/**
 * A local OpenAI-compatible server: `POST /v1/chat/completions` answers as scripted by {@link FakeOpenAi.behave},
 * streamed as server-sent events (each event written in two halves, so clients must reassemble them), and every
 * request is recorded with a promise telling when the client went away. `POST /v1/audio/transcriptions` takes
 * OpenAI's multipart form, records it in {@link FakeOpenAi.transcriptions} and answers as scripted by
 * {@link FakeOpenAi.transcribeAs}.
 */
export class FakeOpenAi {
  readonly requests: CompletionRequest[] = [];
  readonly transcriptions: TranscriptionRequest[] = [];
  #behaviour: Behaviour = { kind: "stream", fragments: ["Hello", " there"] };
  #transcription: TranscriptionBehaviour = { kind: "text", text: "Hello there" };
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeOpenAi> {
    const fake = new FakeOpenAi(createServer());
    fake.#server.on("connection", (socket) => {
      fake.#sockets.add(socket);
      socket.on("close", () => fake.#sockets.delete(socket));
    });
    fake.#server.on("request", (req, res) => void fake.#handle(req, res));
    await new Promise<void>((resolve) => fake.#server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  /** The base URL clients configure, ending in `/v1`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  /** Sets how the following requests are answered. */
  behave(behaviour: Behaviour): this {
    this.#behaviour = behaviour;
    return this;
  }

  /** Sets how the following transcription requests are answered. */
  transcribeAs(behaviour: TranscriptionBehaviour): this {
    this.#transcription = behaviour;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const piece of req) chunks.push(piece as Buffer);
    const clientGone = new Promise<void>((resolve) => {
      res.on("close", () => {
        if (!res.writableFinished) resolve();
      });
    });
    const path = req.url ?? "/";
    if (req.method === "POST" && path === "/v1/audio/transcriptions") {
      this.transcriptions.push({
        headers: req.headers,
        ...transcriptionForm(Buffer.concat(chunks), req.headers["content-type"]),
      });
      this.#transcribe(this.#transcription, res);
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
    this.requests.push({ path, headers: req.headers, body, clientGone });
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    await this.#answer(this.#behaviour, res);
  }

  #transcribe(behaviour: TranscriptionBehaviour, res: ServerResponse): void {
    if (behaviour.kind === "hang") return;
    const [status, body] =
      behaviour.kind === "text" ? [200, { text: behaviour.text }] : [behaviour.status, behaviour.body];
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  }

  async #answer(behaviour: Behaviour, res: ServerResponse): Promise<void> {
    if (behaviour.kind === "hang") return;
    if (behaviour.kind === "status") {
      res.writeHead(behaviour.status, { "content-type": "application/json" }).end(JSON.stringify(behaviour.body));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.flushHeaders();
    const fragments = behaviour.kind === "stream" ? behaviour.fragments : ["one ", "two ", "three ", "four "];
    const count = behaviour.kind === "stream" ? fragments.length : behaviour.after;
    await this.#send(res, chunk({ role: "assistant", content: "" }));
    for (const content of fragments.slice(0, count)) {
      await this.#send(res, chunk({ content }), behaviour.kind === "stream" ? behaviour.pauseMs : undefined);
    }
    if (behaviour.kind === "cut") {
      res.socket?.destroy();
      return;
    }
    if (behaviour.kind === "stall") return;
    if (behaviour.kind === "error-event") {
      await this.#send(res, { error: { message: behaviour.message, type: "server_error" } });
      res.end();
      return;
    }
    if (behaviour.finish !== false) await this.#send(res, chunk({}, "stop"));
    if (behaviour.usage !== null) {
      const total = behaviour.usage ?? 42;
      const usage = { prompt_tokens: total - 2, completion_tokens: 2, total_tokens: total };
      await this.#send(res, { ...chunk({}), choices: [], usage });
    }
    if (behaviour.finish !== false) res.write("data: [DONE]\n\n");
    res.end();
  }

  /** Writes one event in two halves (split by bytes, even inside a character) with pauses, unless the client is gone. */
  async #send(res: ServerResponse, payload: object, pauseMs = 2): Promise<void> {
    if (res.destroyed) return;
    const event = Buffer.from(`data: ${JSON.stringify(payload)}\n\n`);
    const half = Math.floor(event.length / 2);
    res.write(event.subarray(0, half));
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (res.destroyed) return;
    res.write(event.subarray(half));
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}
