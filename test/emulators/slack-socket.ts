import { randomUUID } from "node:crypto";
import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";

/** The first message Slack sends on a Socket Mode connection; SocketModeClient.start() resolves on it. */
const HELLO = JSON.stringify({
  type: "hello",
  num_connections: 1,
  debug_info: { host: "emulator", build_number: 1, approximate_connection_time: 18060 },
  connection_info: { app_id: "A0EMULATOR" },
});

/** How {@link SlackSocketMode.send} wraps a payload. */
export interface SlackSocketSendOptions {
  /** "events_api" (default) for an Events API envelope, "interactive" for an interactivity payload. */
  kind?: "events_api" | "interactive";
  /** Default 0. */
  retryAttempt?: number;
  /** Default "". */
  retryReason?: string;
  /** How long to wait for the ack, default 3000. */
  timeoutMs?: number;
  /**
   * Which open connection gets it, 0 being the oldest (Slack spreads an app's envelopes among its connections);
   * default the newest.
   */
  connection?: number;
}

/** The client's acknowledgement of an envelope, as it sent it. */
export interface SlackSocketAck {
  envelope_id: string;
  payload?: unknown;
}

interface PendingAck {
  socket: WebSocket;
  resolve: (ack: SlackSocketAck) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** Interactivity payloads whose ack may carry a response (https://docs.slack.dev/apis/events-api/using-socket-mode). */
const RESPONDABLE = new Set(["view_submission", "block_suggestion"]);

/**
 * Socket Mode (https://docs.slack.dev/apis/events-api/using-socket-mode) on the emulator's HTTP server:
 * apps.connections.open hands out single-use tickets, the upgrade of `/link/?ticket=…` opens a WebSocket that gets
 * Slack's hello, and envelopes sent over it wait for the client's ack.
 */
export class SlackSocketMode {
  readonly #server = new WebSocketServer({ noServer: true });
  readonly #tickets = new Set<string>();
  readonly #sockets: WebSocket[] = [];
  readonly #pending = new Map<string, PendingAck>();

  /** A new single-use ticket for a `/link/?ticket=` URL. */
  ticket(): string {
    const ticket = randomUUID();
    this.#tickets.add(ticket);
    return ticket;
  }

  /** Open sockets. */
  get connections(): number {
    return this.#open().length;
  }

  /** For the HTTP server's `upgrade` event: accepts `/link/?ticket=…` with an unused ticket, refuses anything else. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    const url = new URL(req.url ?? "/", "http://emulator");
    const refusal = this.#refusal(url);
    if (refusal !== undefined) refuseUpgrade(socket, refusal);
    else this.#server.handleUpgrade(req, socket, head, (ws) => this.#connected(ws));
  }

  /** The HTTP status refusing an upgrade to `url`, if it is refused. */
  #refusal(url: URL): number | undefined {
    if (url.pathname !== "/link/" && url.pathname !== "/link") return 404;
    const ticket = url.searchParams.get("ticket");
    if (!ticket) return 401;
    // A ticket works once.
    return this.#tickets.delete(ticket) ? undefined : 403;
  }

  /** Sends `payload` in an envelope over the newest open socket (or `options.connection`); resolves with its ack. */
  async send(payload: object, options: SlackSocketSendOptions = {}): Promise<SlackSocketAck> {
    const socket = this.#open().at(options.connection ?? -1);
    if (!socket) throw new Error(`no Socket Mode connection ${options.connection ?? "at all"} is open`);
    const kind = options.kind ?? "events_api";
    const type = (payload as { type?: unknown }).type;
    const envelopeId = randomUUID();
    const envelope = {
      envelope_id: envelopeId,
      type: kind,
      payload,
      accepts_response_payload: kind === "interactive" && typeof type === "string" && RESPONDABLE.has(type),
      retry_attempt: options.retryAttempt ?? 0,
      retry_reason: options.retryReason ?? "",
    };
    const timeoutMs = options.timeoutMs ?? 3000;
    return new Promise<SlackSocketAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(envelopeId);
        reject(new Error(`no ack for envelope ${envelopeId} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(envelopeId, { socket, resolve, reject, timer });
      socket.send(JSON.stringify(envelope), (error) => {
        if (error) this.#settle(envelopeId, undefined, new Error(`sending the envelope failed: ${error.message}`));
      });
    });
  }

  /** Terminates every socket, rejecting the acks still awaited. */
  async close(): Promise<void> {
    for (const socket of this.#sockets.splice(0)) socket.terminate();
    for (const id of [...this.#pending.keys()]) this.#settle(id, undefined, new Error("the emulator closed"));
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #open(): WebSocket[] {
    return this.#sockets.filter((socket) => socket.readyState === socket.OPEN);
  }

  #connected(socket: WebSocket): void {
    this.#sockets.push(socket);
    socket.on("error", () => socket.terminate());
    socket.on("close", () => {
      const index = this.#sockets.indexOf(socket);
      if (index >= 0) this.#sockets.splice(index, 1);
      for (const [id, pending] of this.#pending) {
        if (pending.socket === socket) this.#settle(id, undefined, new Error("the socket closed before the ack"));
      }
    });
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      const ack = parseAck(data.toString());
      if (ack && this.#pending.get(ack.envelope_id)?.socket === socket) this.#settle(ack.envelope_id, ack);
    });
    socket.send(HELLO);
  }

  #settle(id: string, ack: SlackSocketAck | undefined, error?: Error): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (ack) pending.resolve(ack);
    else pending.reject(error ?? new Error("no ack"));
  }
}

/** An ack, `{ envelope_id, payload? }`; anything else the client sends is ignored. */
function parseAck(text: string): SlackSocketAck | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null) return undefined;
  const { envelope_id, payload } = message as { envelope_id?: unknown; payload?: unknown };
  if (typeof envelope_id !== "string") return undefined;
  return payload === undefined ? { envelope_id } : { envelope_id, payload };
}

function refuseUpgrade(socket: Duplex, status: number): void {
  socket.once("finish", () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
