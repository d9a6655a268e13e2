import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent } from "undici";
import { closeServer, listenOnLoopback, loopbackUrl } from "../support/loopback-server.js";
import { type ServedDownload, serveFile } from "./file-downloads.js";
import { GraphError, invalidToken, messagingError, unsupportedRequest } from "./whatsapp-errors.js";
import { DEFAULT_WHATSAPP_LIMITS, type WhatsAppLimits, WhatsAppRateLimits } from "./whatsapp-limits.js";
import { type MediaOptions, WhatsAppMedia } from "./whatsapp-media.js";
import { type OutgoingMedia, type OutgoingTemplate, parseOutgoing } from "./whatsapp-outgoing.js";
import { type EmulatedTemplate, WhatsAppTemplates } from "./whatsapp-templates.js";
import { getVerification, postWebhook } from "./whatsapp-webhook.js";

export type { WhatsAppLimits } from "./whatsapp-limits.js";
export type { EmulatedTemplate } from "./whatsapp-templates.js";

/** One request the emulator received, answered or not. */
export interface WhatsAppCall {
  method: string;
  /** The path without the query (which, for downloads, holds the media URL's token). */
  path: string;
  /** The parsed JSON body; the raw text when not JSON; undefined when empty. */
  body: unknown;
  /** performance.now() when the request was complete. */
  at: number;
  /** The HTTP status of the answer. */
  status: number;
  /** Graph's error.code, when refused. */
  errorCode?: number;
}

/** A message the business number sent. */
export interface WhatsAppSentMessage {
  /** The wamid answered. */
  id: string;
  /** The recipient's wa_id. */
  to: string;
  type: string;
  /** text.body of a text message. */
  text?: string;
  /** The interactive object as sent. */
  interactive?: unknown;
  /** The image / audio / document object of a media message. */
  media?: OutgoingMedia;
  /** The template of a template message, with its body's variables. */
  template?: OutgoingTemplate;
  /** context.message_id. */
  replyTo?: string;
  /** performance.now() */
  at: number;
}

/** What a sent message shows as text: text.body, or the body of an interactive one (an answer with reply buttons). */
export function shownText(message: WhatsAppSentMessage): string {
  return message.text ?? (message.interactive as { body?: { text?: string } } | undefined)?.body?.text ?? "";
}

/** How {@link WhatsAppEmulator.start} sets the emulator up. */
export interface WhatsAppEmulatorOptions {
  /** Default "EAAG-test-token". */
  accessToken?: string;
  /** Default "1234567890". */
  phoneNumberId?: string;
  /** Signs webhook deliveries; default "whatsapp-app-secret". */
  appSecret?: string;
  /** Default "v23.0"; requests may use any well-formed version, as Graph serves several. */
  version?: string;
  /** Merged over the defaults, limit by limit. */
  limits?: Partial<WhatsAppLimits>;
  /** Default: a free port. */
  port?: number;
  /**
   * The emulator's clock in epoch ms (default Date.now): the deliveries' `timestamp` and the 24-hour window run on
   * it, so a test moves time by moving it.
   */
  now?: () => number;
  /** The approved templates template sends are checked against (more with {@link WhatsAppEmulator.addTemplate}). */
  templates?: EmulatedTemplate[];
}

/** Free-form messages are allowed for 24 hours after the user's last message (the customer service window). */
const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The business account and display number of deliveries, as in test/fixtures/vercel-chat/dm-whatsapp.json. */
const BUSINESS_ACCOUNT_ID = "100000000000002";
const DISPLAY_PHONE_NUMBER = "15550001111";

/**
 * A local WhatsApp Cloud API (Meta Graph API) for end-to-end tests and benchmarks: point the adapter's API URL
 * (WHATSAPP_API_URL) at {@link WhatsAppEmulator.url}. It validates and keeps the messages the business number sends,
 * records read receipts and typing indicators, enforces the customer service window (free-form messages only within
 * 24 hours of the user's last message, by its clock; approved templates at any time, checked against the registered
 * ones) and the pair and throughput rate limits, serves media, posts signed webhooks, and records every request
 * (never the token).
 */
export class WhatsAppEmulator {
  readonly accessToken: string;
  readonly phoneNumberId: string;
  readonly appSecret: string;
  readonly version: string;
  /** Every request in arrival order, including refused ones. */
  readonly calls: WhatsAppCall[] = [];
  readonly #server: Server;
  readonly #limits: WhatsAppLimits;
  #rateLimits: WhatsAppRateLimits;
  #sent: WhatsAppSentMessage[] = [];
  #readReceipts: { messageId: string; typing: boolean; at: number }[] = [];
  /** When each user last wrote (epoch ms, the emulator's clock), by wa_id. */
  readonly #lastMessages = new Map<string, number>();
  readonly #now: () => number;
  readonly #templates = new WhatsAppTemplates();
  readonly #media = new WhatsAppMedia();
  /** Every media download served, with how many bytes left (a capped client hangs up early). */
  readonly downloads: ServedDownload[] = [];
  #nextId = 1;
  /** Webhook deliveries reuse connections, as Meta's do. */
  readonly #deliveries = new Agent();

  private constructor(server: Server, options: WhatsAppEmulatorOptions) {
    this.#server = server;
    this.accessToken = options.accessToken ?? "EAAG-test-token";
    this.phoneNumberId = options.phoneNumberId ?? "1234567890";
    this.appSecret = options.appSecret ?? "whatsapp-app-secret";
    this.version = options.version ?? "v23.0";
    this.#limits = { ...DEFAULT_WHATSAPP_LIMITS, ...options.limits };
    this.#rateLimits = new WhatsAppRateLimits(this.#limits);
    this.#now = options.now ?? Date.now;
    for (const template of options.templates ?? []) this.#templates.add(template);
  }

  /** Starts the emulator on 127.0.0.1, on `port` or a free one. */
  static async start(options: WhatsAppEmulatorOptions = {}): Promise<WhatsAppEmulator> {
    const emulator = new WhatsAppEmulator(createServer(), options);
    // A request cut off mid-body leaves nobody to answer.
    emulator.#server.on("request", (req, res) => void emulator.#handle(req, res).catch(() => res.destroy()));
    await listenOnLoopback(emulator.#server, options.port);
    return emulator;
  }

  /** The Graph API base without version, "http://127.0.0.1:<port>" (WHATSAPP_API_URL). */
  get url(): string {
    return loopbackUrl(this.#server);
  }

  /** Requests refused by a rate limit (131056 or 130429). */
  rateLimited(): WhatsAppCall[] {
    return this.calls.filter((call) => call.errorCode === 131056 || call.errorCode === 130429);
  }

  /** The messages sent to a user, in order. */
  sentTo(waId: string): WhatsAppSentMessage[] {
    return this.#sent.filter((message) => message.to === waId);
  }

  /** The accepted `status: "read"` calls, in order; `typing` when they carried typing_indicator. */
  readReceipts(): { messageId: string; typing: boolean; at: number }[] {
    return [...this.#readReceipts];
  }

  /**
   * Registers media bytes; returns the media id to put in an inbound message. `hideSize` leaves file_size out of
   * the metadata and `declareLength: false` serves the bytes without Content-Length.
   */
  addMedia(bytes: Uint8Array, mimeType: string, options: MediaOptions = {}): string {
    return this.#media.add(bytes, mimeType, options);
  }

  /** Opens the user's 24-hour customer service window now, as an inbound message would. */
  openWindow(waId: string): void {
    this.#lastMessages.set(waId, this.#now());
  }

  /** Sets when the user last wrote (epoch ms): in the past, to close their window without moving the clock. */
  setLastMessage(waId: string, at: number): void {
    this.#lastMessages.set(waId, at);
  }

  /** Registers an approved template, which template sends are then checked against. */
  addTemplate(template: EmulatedTemplate): void {
    this.#templates.add(template);
  }

  /**
   * POSTs a webhook delivery to `url` as Meta does: JSON body, header X-Hub-Signature-256 = "sha256=" + hex
   * HMAC-SHA256(appSecret, rawBody) (or `signature` to test refusals). Resolves with status and body text. The
   * users whose messages it carries enter their customer service window from each message's `timestamp` (now when
   * it has none), before the receiver sees them.
   */
  deliver(
    url: string,
    payload: object,
    options: { signature?: string } = {},
  ): Promise<{ status: number; body: string }> {
    for (const { waId, at } of sendersIn(payload)) {
      this.#lastMessages.set(waId, Math.max(at ?? this.#now(), this.#lastMessages.get(waId) ?? 0));
    }
    return postWebhook(this.#deliveries, url, this.appSecret, payload, options.signature);
  }

  /**
   * Builds a delivery (object "whatsapp_business_account", entry[0].changes[0].value with messaging_product,
   * metadata {display_phone_number, phone_number_id}, contacts, messages) for user messages like the fixture's, e.g.
   * `{ type: "text", text: { body: "hi" } }`; each gets `from`, a wamid `id` and `timestamp` (the emulator's clock)
   * unless it has them.
   * Defaults: from "15550002222", name "Test User", phoneNumberId the emulator's.
   */
  delivery(messages: object[], options: { from?: string; name?: string; phoneNumberId?: string } = {}): object {
    const from = options.from ?? "15550002222";
    const timestamp = String(Math.floor(this.#now() / 1000));
    return {
      object: "whatsapp_business_account",
      entry: [
        {
          id: BUSINESS_ACCOUNT_ID,
          changes: [
            {
              value: {
                messaging_product: "whatsapp",
                metadata: {
                  display_phone_number: DISPLAY_PHONE_NUMBER,
                  phone_number_id: options.phoneNumberId ?? this.phoneNumberId,
                },
                contacts: [{ profile: { name: options.name ?? "Test User" }, wa_id: from }],
                messages: messages.map((message) => ({ from, id: this.#wamid(from), timestamp, ...message })),
              },
              field: "messages",
            },
          ],
        },
      ],
    };
  }

  /** Verification handshake helper: GET url?hub.mode=subscribe&hub.verify_token=…&hub.challenge=… → status and body. */
  verify(url: string, verifyToken: string, challenge: string): Promise<{ status: number; body: string }> {
    return getVerification(this.#deliveries, url, verifyToken, challenge);
  }

  /** Forgets calls, sent messages, read receipts, service windows and the rate-limit state (not media or templates). */
  reset(): void {
    this.calls.length = 0;
    this.#sent = [];
    this.#readReceipts = [];
    this.#lastMessages.clear();
    this.#rateLimits = new WhatsAppRateLimits(this.#limits);
  }

  /** Stops the server, cutting keep-alive connections. */
  async close(): Promise<void> {
    await Promise.all([closeServer(this.#server), this.#deliveries.destroy()]);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const at = performance.now();
    const url = new URL(req.url ?? "/", "http://emulator");
    const text = Buffer.concat(chunks).toString("utf8");
    const method = req.method ?? "GET";
    const call: WhatsAppCall = {
      method,
      path: url.pathname,
      body: text === "" ? undefined : parseJson(text),
      at,
      status: 200,
    };
    this.calls.push(call);
    const authorized = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] === this.accessToken;
    try {
      const download = /^\/media\/([^/]+)$/.exec(url.pathname)?.[1];
      if (download !== undefined && method === "GET") {
        const media = this.#media.download(download, url.searchParams.get("token"));
        // What Meta's lookaside host answers for a dead URL is unverified; a 404 is what an adapter must cope with.
        if (!media) throw new GraphError(404, 100, "Media not found");
        if (!authorized) throw invalidToken();
        const headers = { "content-type": media.mimeType };
        return await serveFile(res, media.id, media.bytes, headers, this.downloads, media.options);
      }
      reply(res, 200, this.#route(method, url.pathname, call.body, authorized, at));
    } catch (caught) {
      // An emulator bug: its text goes into the message, to make it visible in the failing test.
      const error =
        caught instanceof GraphError
          ? caught
          : new GraphError(500, 1, `An unknown error has occurred: ${String(caught)}`);
      call.status = error.status;
      call.errorCode = error.code;
      reply(res, error.status, error.json());
    }
  }

  #route(method: string, path: string, body: unknown, authorized: boolean, at: number): object {
    const [, version = "", id = "", edge, ...rest] = path.split("/");
    // Graph's exact answer to a malformed version is unverified; this is its answer to a path it cannot route.
    if (!/^v\d+\.\d+$/.test(version)) throw new GraphError(400, 2500, `Unknown path components: ${path}`);
    if (!authorized) throw invalidToken();
    if (method === "POST" && edge === "messages" && rest.length === 0) {
      if (id !== this.phoneNumberId) throw unsupportedRequest(method, id);
      return this.#messages(body, at);
    }
    // The number's own node, as `chatbridge links` asks for it: Graph shows the number for people.
    if (method === "GET" && edge === undefined && id === this.phoneNumberId) {
      return { display_phone_number: DISPLAY_PHONE_NUMBER.replace(/^(\d)(\d{3})(\d{3})(\d{4})$/, "+$1 $2-$3-$4"), id };
    }
    const media = method === "GET" && edge === undefined ? this.#media.info(id, this.url) : undefined;
    if (!media) throw unsupportedRequest(method, id);
    return media;
  }

  #messages(body: unknown, at: number): object {
    const outgoing = parseOutgoing(body);
    if (outgoing.kind === "read") {
      this.#readReceipts.push({ messageId: outgoing.messageId, typing: outgoing.typing, at });
      return { success: true };
    }
    const { waId } = outgoing;
    if (outgoing.template) {
      // An approved template may go at any time; what it is sent with must fit it.
      this.#templates.check(outgoing.template);
    } else {
      // Everything else is free-form and needs the window. The real Cloud API may accept such a send and report
      // 131047 later in a "failed" status webhook; answering at once keeps tests simple.
      const last = this.#lastMessages.get(waId);
      if (last === undefined || this.#now() - last >= SERVICE_WINDOW_MS) {
        throw messagingError(
          131047,
          "Re-engagement message",
          "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
        );
      }
    }
    const limit = this.#rateLimits.refusal(waId, at);
    if (limit === 131056) {
      throw messagingError(
        131056,
        "(Business Account, Consumer Account) pair rate limit hit",
        "Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.",
      );
    }
    if (limit === 130429)
      throw messagingError(130429, "Rate limit hit", "Cloud API message throughput has been reached.");
    this.#rateLimits.count(waId, at);
    const message: WhatsAppSentMessage = {
      id: this.#wamid(waId),
      to: waId,
      type: outgoing.type,
      ...(outgoing.text !== undefined && { text: outgoing.text }),
      ...(outgoing.interactive !== undefined && { interactive: outgoing.interactive }),
      ...(outgoing.media !== undefined && { media: outgoing.media }),
      ...(outgoing.template !== undefined && { template: outgoing.template }),
      ...(outgoing.replyTo !== undefined && { replyTo: outgoing.replyTo }),
      at,
    };
    this.#sent.push(message);
    return {
      messaging_product: "whatsapp",
      contacts: [{ input: outgoing.input, wa_id: waId }],
      messages: [{ id: message.id }],
    };
  }

  /** A message id shaped like Meta's: "wamid." and base64, unique within the emulator. */
  #wamid(waId: string): string {
    return `wamid.${Buffer.from(`${waId}:${this.#nextId++}`).toString("base64")}`;
  }
}

/** The users whose messages a webhook payload carries (wa_id), with when each message was sent (epoch ms). */
function sendersIn(payload: object): { waId: string; at: number | undefined }[] {
  type Message = { from?: unknown; timestamp?: unknown };
  const { entry } = payload as { entry?: { changes?: { value?: { messages?: Message[] } }[] }[] };
  const messages = (entry ?? []).flatMap((e) => e.changes ?? []).flatMap((change) => change.value?.messages ?? []);
  return messages.flatMap((message) => {
    if (typeof message.from !== "string") return [];
    const seconds = Number(message.timestamp);
    return [
      {
        waId: message.from,
        at: Number.isFinite(seconds) && message.timestamp !== undefined ? seconds * 1000 : undefined,
      },
    ];
  });
}

function reply(res: ServerResponse, status: number, body: object): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  res.end(json);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
