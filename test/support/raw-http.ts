import { connect } from "node:net";
import { expect } from "vitest";

/** One request of {@link sendBody}. */
export interface RawRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers?: Record<string, string>;
  /** Bytes of body, declared in Content-Length and sent as filler. */
  bodyBytes: number;
  /** The Connection header: "close" makes Node.js close the connection right after the response. */
  connection: "close" | "keep-alive";
  /** Sends the headers only and waits for the answer, which must then come from the headers alone. */
  withholdBody?: boolean;
  /** Default 20 s. */
  timeoutMs?: number;
}

/** What came back, and how the connection ended. */
export interface RawAnswer {
  /** Undefined when no complete status line and headers arrived. */
  status: number | undefined;
  headers: Record<string, string>;
  /** The response body as far as it arrived (its Content-Length), as UTF-8. */
  body: string;
  /** Whether the whole response (its Content-Length) arrived. */
  complete: boolean;
  /** The socket's error code (EPIPE, ECONNRESET) or "timeout"; undefined when the connection ended cleanly. */
  error: string | undefined;
  /** Body bytes handed to the socket before the exchange ended. */
  sentBytes: number;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * Sends a request over a plain TCP socket the way a simple client does: the headers, then every byte of the body
 * (with backpressure), reading whatever the server answers meanwhile. Unlike node:http or undici, which stop
 * sending once the answer is complete and keep quiet about what happens to the socket afterwards, it tells when the
 * server cut the connection while the body was still on its way (EPIPE or ECONNRESET), which is when a client that
 * reads only after sending loses the answer. Resolves when the connection ended or failed, or with keep-alive once
 * the whole answer arrived and the body was sent.
 */
export function sendBody(url: string, request: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let error: string | undefined;
    let sentBytes = 0;
    let sentAll = request.withholdBody === true;
    let finished = false;
    const timer = setTimeout(() => {
      error ??= "timeout";
      socket.destroy();
    }, request.timeoutMs ?? 20_000);

    const answer = (): RawAnswer => {
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd < 0) return { status: undefined, headers: {}, body: "", complete: false, error, sentBytes };
      const [statusLine = "", ...lines] = received.subarray(0, headEnd).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers["content-length"] ?? Number.NaN);
      const rest = received.subarray(headEnd + 4);
      const complete = Number.isFinite(length) && rest.length >= length;
      const body = (Number.isFinite(length) ? rest.subarray(0, length) : rest).toString("utf8");
      return { status: Number(statusLine.split(" ")[1]), headers, body, complete, error, sentBytes };
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const result = answer();
      socket.destroy();
      resolve(result);
    };
    // With keep-alive the server may keep the connection: done once the answer is whole and the body is out. With
    // close, the end of the connection is waited for, since a server that closes it with bytes of the body unread
    // resets it (ECONNRESET) even when they all reached its kernel.
    const maybeDone = () => {
      const waitsForEnd = request.connection === "close" && !request.withholdBody;
      if (!waitsForEnd && sentAll && answer().complete) finish();
    };

    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      maybeDone();
    });
    socket.on("error", (cause: NodeJS.ErrnoException) => {
      error ??= cause.code ?? cause.message;
    });
    socket.on("close", finish);

    const head = [
      `${request.method} ${request.path} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      `connection: ${request.connection}`,
      `content-length: ${request.bodyBytes}`,
      ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    if (request.withholdBody) return;
    const pump = () => {
      while (sentBytes < request.bodyBytes && !socket.destroyed) {
        const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, request.bodyBytes - sentBytes));
        sentBytes += chunk.length;
        if (!socket.write(chunk)) {
          socket.once("drain", pump);
          return;
        }
      }
      if (socket.destroyed) return;
      // Handed to the kernel: what the server does with the bytes now shows as a clean end or a reset.
      socket.write("", () => {
        sentAll = true;
        maybeDone();
      });
    };
    pump();
  });
}

/** Expects `answer` to be a whole JSON answer of `status` with `body`, its connection not reset; `label` names it. */
export function expectAnswer(answer: RawAnswer, status: number, body: unknown, label: string): void {
  expect(answer.error, label).toBeUndefined();
  expect(answer.status, label).toBe(status);
  expect(answer.headers["content-type"], label).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body), label).toEqual(body);
}
