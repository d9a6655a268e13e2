import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent } from "undici";
import { closeServer, listenOnLoopback, loopbackUrl } from "../support/loopback-server.js";
import type { ServedDownload, ServeOptions } from "./file-downloads.js";
import { blocksOf, type MessageContent, messageContent, streamedMarkdown } from "./slack-content.js";
import { deliverEvent, type SlackDeliveryOptions, type SlackDeliveryResult } from "./slack-deliver.js";
import { refuse, SlackApiError } from "./slack-errors.js";
import { SlackFiles } from "./slack-files.js";
import { mergeLimits, retryAfterSeconds, type SlackLimits, SlackRateLimits } from "./slack-limits.js";
import { filledParam, type Params, readParams, stringParam, tokenOf } from "./slack-params.js";
import { type SlackSocketAck, SlackSocketMode, type SlackSocketSendOptions } from "./slack-socket.js";

export type { SlackLimits, SlackMethodLimit } from "./slack-limits.js";
export type { SlackSocketAck, SlackSocketSendOptions } from "./slack-socket.js";

/** One Web API call the emulator received, answered or not. */
export interface SlackCall {
  /** As called, e.g. "chat.postMessage". */
  method: string;
  /** The decoded arguments, without `token`. */
  params: Record<string, unknown>;
  /** performance.now() when the request was complete. */
  at: number;
  ok: boolean;
  /** Slack's error code when !ok, e.g. "ratelimited". */
  error?: string;
  /** The HTTP status of the answer. */
  status: number;
}

/** A message the bot posted or streamed, in its current state. */
export interface SlackMessage {
  channel: string;
  ts: string;
  threadTs: string | undefined;
  /** What the message shows now: `text` (mrkdwn) or the concatenated `markdown_text` of a stream / post / update. */
  text: string;
  /** "mrkdwn" when set through `text`, "markdown" through `markdown_text`. */
  format: "mrkdwn" | "markdown";
  blocks: unknown[] | undefined;
  /** A stream started and not stopped yet. */
  streaming: boolean;
  /** chat.update calls that changed it. */
  edits: number;
  /** chat.appendStream calls. */
  appends: number;
  /** performance.now() of the post or startStream. */
  postedAt: number;
  /** performance.now() of the last change after posting. */
  changedAt: number | undefined;
  /** performance.now() of chat.stopStream. */
  stoppedAt: number | undefined;
  recipientUserId?: string;
  recipientTeamId?: string;
}

/** How {@link SlackEmulator.start} sets the emulator up. */
export interface SlackEmulatorOptions {
  /** Default "xoxb-test-token". */
  token?: string;
  /** The app-level token apps.connections.open (Socket Mode) takes, default "xapp-1-test-app-token". */
  appToken?: string;
  /** Default "T0TEST". */
  teamId?: string;
  /** Default "U0BOT". */
  botUserId?: string;
  /** Default "B0BOT". */
  botId?: string;
  /** Merged over the defaults key by key, and `methods` method by method. */
  limits?: Partial<SlackLimits>;
  /** Default: a free port. */
  port?: number;
}

/** A user users.info knows, shaped as Slack's user object (the fields the bridge may read). */
interface SlackUser {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  deleted: false;
  is_bot: false;
  tz: string;
  profile: { display_name: string; real_name: string };
}

type Handler = (params: Params, at: number) => object;

/**
 * A local Slack Web API server (https://docs.slack.dev/reference/methods) for end-to-end tests and benchmarks: give
 * WebClient `slackApiUrl: emulator.url`. It keeps the messages the bot posts, updates and streams, enforces per-method
 * and per-channel rate limits with 429 and Retry-After, serves private files, delivers signed events, and records
 * every call. Socket Mode works too: apps.connections.open (with the app-level token) hands out a WebSocket URL on
 * the same server for SocketModeClient, and {@link SlackEmulator.sendOverSocket} sends events over it.
 */
export class SlackEmulator {
  readonly token: string;
  readonly appToken: string;
  readonly teamId: string;
  readonly botUserId: string;
  readonly botId: string;
  /** Every call in arrival order, including refused and rate-limited ones. */
  readonly calls: SlackCall[] = [];
  /** Image URLs Slack cannot download: a post whose blocks show one is refused with `invalid_blocks`. */
  readonly unreachableImages = new Set<string>();
  readonly #server: Server;
  readonly #limits: SlackLimits;
  #rateLimits: SlackRateLimits;
  /** By `${channel}/${ts}`, in post order. */
  readonly #messages = new Map<string, SlackMessage>();
  #statuses: { channel: string; threadTs: string; status: string; at: number }[] = [];
  #prompts = new Map<string, { title: string | undefined; prompts: { title: string; message: string }[] }>();
  readonly #users = new Map<string, SlackUser>();
  readonly #files: SlackFiles;
  readonly #notInChannel = new Set<string>();
  #streamingRefusal: string | undefined;
  /** The last ts handed out, in microseconds, so that each is later than the one before. */
  #lastTs = 0;
  /** Event deliveries reuse connections, as Slack's do. */
  readonly #deliveries = new Agent();
  readonly #socketMode = new SlackSocketMode();

  readonly #methods = new Map<string, Handler>(
    Object.entries<Handler>({
      "auth.test": () => ({
        url: "https://test.slack.com/",
        team: "Test",
        user: "chatbridge",
        team_id: this.teamId,
        user_id: this.botUserId,
        bot_id: this.botId,
      }),
      "apps.connections.open": () => ({
        url: `${this.#origin.replace(/^http/, "ws")}/link/?ticket=${this.#socketMode.ticket()}`,
      }),
      "chat.postMessage": (params, at) => this.#postMessage(params, at),
      "chat.update": (params, at) => this.#update(params, at),
      "chat.startStream": (params, at) => this.#startStream(params, at),
      "chat.appendStream": (params, at) => this.#appendStream(params, at),
      "chat.stopStream": (params, at) => this.#stopStream(params, at),
      "assistant.threads.setStatus": (params, at) => this.#setStatus(params, at),
      "assistant.threads.setSuggestedPrompts": (params) => this.#setSuggestedPrompts(params),
      "users.info": (params) => {
        const user = this.#users.get(String(params.user));
        if (!user) throw refuse("user_not_found");
        return { user };
      },
    }),
  );

  private constructor(server: Server, options: SlackEmulatorOptions) {
    this.#server = server;
    this.token = options.token ?? "xoxb-test-token";
    this.appToken = options.appToken ?? "xapp-1-test-app-token";
    this.teamId = options.teamId ?? "T0TEST";
    this.botUserId = options.botUserId ?? "U0BOT";
    this.botId = options.botId ?? "B0BOT";
    this.#limits = mergeLimits(options.limits);
    this.#rateLimits = new SlackRateLimits(this.#limits);
    this.#files = new SlackFiles(this.teamId);
  }

  /** Starts the emulator on 127.0.0.1, on `port` or a free one. */
  static async start(options: SlackEmulatorOptions = {}): Promise<SlackEmulator> {
    const emulator = new SlackEmulator(createServer(), options);
    // A request cut off mid-body leaves nobody to answer.
    emulator.#server.on("request", (req, res) => void emulator.#handle(req, res).catch(() => res.destroy()));
    emulator.#server.on("upgrade", (req, socket, head) => emulator.#socketMode.upgrade(req, socket, head));
    await listenOnLoopback(emulator.#server, options.port);
    return emulator;
  }

  /** The slackApiUrl for WebClient, "http://127.0.0.1:<port>/api/". */
  get url(): string {
    return `${this.#origin}/api/`;
  }

  get #origin(): string {
    return loopbackUrl(this.#server);
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Calls answered 429. */
  rateLimited(): SlackCall[] {
    return this.calls.filter((call) => call.status === 429);
  }

  /** The bot's messages in the channel (only those in the thread, when given), in post order. */
  messagesIn(channel: string, threadTs?: string): SlackMessage[] {
    return [...this.#messages.values()].filter(
      (message) => message.channel === channel && (threadTs === undefined || message.threadTs === threadTs),
    );
  }

  /** The statuses assistant.threads.setStatus set in the channel (in the thread, when given), in order. */
  statuses(channel: string, threadTs?: string): { status: string; at: number }[] {
    return this.#statuses
      .filter((entry) => entry.channel === channel && (threadTs === undefined || entry.threadTs === threadTs))
      .map(({ status, at }) => ({ status, at }));
  }

  /** The suggested prompts assistant.threads.setSuggestedPrompts last set in a thread, if any. */
  suggestedPrompts(
    channel: string,
    threadTs: string,
  ): { title: string | undefined; prompts: { title: string; message: string }[] } | undefined {
    return this.#prompts.get(`${channel}:${threadTs}`);
  }

  /** Makes chat.startStream answer ok:false with this error (e.g. "feature_not_enabled") until called with undefined. */
  refuseStreaming(error: string | undefined): void {
    this.#streamingRefusal = error;
  }

  /** Channels the bot is not in: chat.postMessage/startStream there answer ok:false "not_in_channel". */
  notInChannel(channel: string): void {
    this.#notInChannel.add(channel);
  }

  /** A user users.info knows: { id, name, real_name, profile: { display_name, real_name }, tz }. */
  addUser(user: { id: string; name: string; realName?: string }): void {
    const realName = user.realName ?? user.name;
    this.#users.set(user.id, {
      id: user.id,
      team_id: this.teamId,
      name: user.name,
      real_name: realName,
      deleted: false,
      is_bot: false,
      tz: "America/Los_Angeles",
      profile: { display_name: user.name, real_name: realName },
    });
  }

  /**
   * A file the private download route serves (only with `Authorization: Bearer <token>`; otherwise it answers 200
   * with an HTML login page, as Slack does). Returns url_private / url_private_download under the emulator.
   * `declareLength: false` serves it without Content-Length.
   */
  addFile(
    bytes: Uint8Array,
    options: { name: string; mimetype: string } & ServeOptions,
  ): { id: string; url_private: string; url_private_download: string } {
    const { id, path, downloadPath } = this.#files.add(bytes, options);
    return { id, url_private: this.#origin + path, url_private_download: this.#origin + downloadPath };
  }

  /**
   * POSTs an Events API payload to `url` as JSON, signed like Slack: X-Slack-Request-Timestamp and X-Slack-Signature
   * (`signature` overrides it, to test bad ones), with X-Slack-Retry-Num / X-Slack-Retry-Reason when given. Resolves
   * with the receiver's status, headers and body text.
   */
  deliver(url: string, payload: object, options: SlackDeliveryOptions): Promise<SlackDeliveryResult> {
    return deliverEvent(this.#deliveries, url, payload, options);
  }

  /** Every file download served, with how many bytes left (a capped client hangs up early). */
  get downloads(): ServedDownload[] {
    return this.#files.downloads;
  }

  /** Sockets connected through apps.connections.open right now. */
  get socketConnections(): number {
    return this.#socketMode.connections;
  }

  /**
   * Sends an Events API payload (the same envelope as `deliver` posts: { type: "event_callback", event_id, event,
   * team_id, ... }) or an interactivity payload (kind "interactive", e.g. a block_actions body) to a connected socket
   * (the newest), as Slack does in Socket Mode: { envelope_id, type: "events_api" | "interactive", payload,
   * accepts_response_payload, retry_attempt, retry_reason }. Resolves with the ack (the client's { envelope_id,
   * payload? } message) or rejects after `timeoutMs` (default 3000) without one, like Slack, which retries
   * unacknowledged envelopes; rejects too when the socket closes first. Rejects when no socket is connected.
   */
  sendOverSocket(payload: object, options?: SlackSocketSendOptions): Promise<SlackSocketAck> {
    return this.#socketMode.send(payload, options);
  }

  /** Forgets calls, messages, statuses and the rate-limit state (not users, files or settings). */
  reset(): void {
    this.calls.length = 0;
    this.#messages.clear();
    this.#statuses = [];
    this.#prompts.clear();
    this.#rateLimits = new SlackRateLimits(this.#limits);
  }

  /** Stops the server, cutting keep-alive connections and Socket Mode sockets. */
  async close(): Promise<void> {
    await this.#socketMode.close();
    await Promise.all([closeServer(this.#server), this.#deliveries.destroy()]);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const at = performance.now();
    const url = new URL(req.url ?? "/", "http://emulator");
    if (url.pathname.startsWith("/files-pri/")) {
      return this.#files.serve(url.pathname, tokenOf(req.headers, {}) === this.token, res);
    }
    const method = /^\/api\/(.*)$/.exec(url.pathname)?.[1];
    if (method === undefined) return void res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");

    const params = readParams(url, req.headers["content-type"], Buffer.concat(chunks).toString("utf8"));
    const token = tokenOf(req.headers, params);
    delete params.token;
    const call: SlackCall = { method, params, at, ok: false, status: 200 };
    this.calls.push(call);
    try {
      const handler = this.#methods.get(method);
      if (!handler) throw new SlackApiError("unknown_method", 404);
      if (!token) throw refuse("not_authed");
      this.#authorize(method, token);
      const channel = String(params.channel ?? "");
      const waitMs = this.#rateLimits.waitMs(method, channel, at);
      if (waitMs > 0) throw new SlackApiError("ratelimited", 429, retryAfterSeconds(waitMs));
      const result = handler(params, at);
      this.#rateLimits.count(method, channel, at);
      call.ok = true;
      reply(res, 200, { ok: true, ...result });
    } catch (caught) {
      // An emulator bug: the detail is the emulator's own field, to make it visible in the failing test.
      const error = caught instanceof SlackApiError ? caught : new SlackApiError("internal_error", 500);
      call.error = error.error;
      call.status = error.status;
      reply(
        res,
        error.status,
        { ok: false, error: error.error, ...(error === caught ? {} : { detail: String(caught) }) },
        error.retryAfter === undefined ? {} : { "retry-after": String(error.retryAfter) },
      );
    }
  }

  /** Socket Mode's apps.connections.open takes only the app-level token, every other method only the bot token. */
  #authorize(method: string, token: string): void {
    const [expected, other] =
      method === "apps.connections.open" ? [this.appToken, this.token] : [this.token, this.appToken];
    if (token === other) throw refuse("not_allowed_token_type");
    if (token !== expected) throw refuse("invalid_auth");
  }

  #postMessage(params: Params, at: number): object {
    const channel = this.#postableChannel(params);
    const content = messageContent(params, this.unreachableImages);
    const message = this.#addMessage(channel, filledParam(params.thread_ts), content, at);
    return { channel, ts: message.ts, message: this.#messageJson(message) };
  }

  #update(params: Params, at: number): object {
    const content = messageContent(params, this.unreachableImages);
    const message = this.#message(params);
    if (message.streaming) throw refuse("cant_update_message");
    const changed =
      content.text !== message.text ||
      content.format !== message.format ||
      JSON.stringify(content.blocks) !== JSON.stringify(message.blocks);
    if (changed) {
      Object.assign(message, content, { changedAt: at });
      message.edits += 1;
    }
    return { channel: message.channel, ts: message.ts, text: message.text, message: this.#messageJson(message) };
  }

  #startStream(params: Params, at: number): object {
    if (this.#streamingRefusal !== undefined) throw refuse(this.#streamingRefusal);
    const channel = this.#postableChannel(params);
    const threadTs = filledParam(params.thread_ts);
    const recipientUserId = filledParam(params.recipient_user_id);
    const recipientTeamId = filledParam(params.recipient_team_id);
    if (threadTs === undefined) throw refuse("invalid_arguments");
    // "Required when streaming to channels": only a DM (D…) knows whom the stream is for.
    if (!channel.startsWith("D") && (recipientUserId === undefined || recipientTeamId === undefined)) {
      throw refuse("invalid_arguments");
    }
    const text = streamedMarkdown(params) ?? "";
    const message = this.#addMessage(channel, threadTs, { text, format: "markdown", blocks: undefined }, at);
    Object.assign(message, {
      streaming: true,
      ...(recipientUserId !== undefined && { recipientUserId }),
      ...(recipientTeamId !== undefined && { recipientTeamId }),
    });
    return { channel, ts: message.ts };
  }

  #appendStream(params: Params, at: number): object {
    const markdown = streamedMarkdown(params);
    if (markdown === undefined) throw refuse("invalid_arguments");
    const message = this.#streamingMessage(params);
    message.text += markdown;
    message.appends += 1;
    message.changedAt = at;
    return { channel: message.channel, ts: message.ts };
  }

  #stopStream(params: Params, at: number): object {
    const markdown = streamedMarkdown(params);
    const blocks = blocksOf(params.blocks);
    const message = this.#streamingMessage(params);
    if (markdown !== undefined) message.text += markdown;
    if (blocks !== undefined) message.blocks = blocks;
    if (markdown !== undefined || blocks !== undefined) message.changedAt = at;
    message.streaming = false;
    message.stoppedAt = at;
    return { channel: message.channel, ts: message.ts, message: this.#messageJson(message) };
  }

  #setStatus(params: Params, at: number): object {
    const channel = filledParam(params.channel_id);
    const threadTs = filledParam(params.thread_ts);
    // An empty status is allowed: it clears the status.
    const status = stringParam(params.status);
    const loading = params.loading_messages;
    if (channel === undefined) throw refuse("channel_not_found");
    if (threadTs === undefined || status === undefined) throw refuse("invalid_arguments");
    // The docs allow at most 10 loading messages; the error for more is a guess.
    if (loading !== undefined && (!Array.isArray(loading) || loading.length > 10)) throw refuse("invalid_arguments");
    this.#statuses.push({ channel, threadTs, status, at });
    return {};
  }

  /** https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts: up to 4 prompts, each a title and a message. */
  #setSuggestedPrompts(params: Params): object {
    const channel = filledParam(params.channel_id);
    const threadTs = filledParam(params.thread_ts);
    const prompts = params.prompts;
    if (channel === undefined) throw refuse("channel_not_found");
    if (threadTs === undefined || !Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4) {
      throw refuse("invalid_arguments");
    }
    const valid = prompts.every(
      (prompt) =>
        typeof prompt === "object" && prompt !== null && filledParam(prompt.title) && filledParam(prompt.message),
    );
    if (!valid) throw refuse("invalid_arguments");
    this.#prompts.set(`${channel}:${threadTs}`, {
      title: stringParam(params.title),
      prompts: prompts.map((prompt) => ({ title: String(prompt.title), message: String(prompt.message) })),
    });
    return {};
  }

  /** The channel of a post or stream start, refused when absent or the bot is not in it. */
  #postableChannel(params: Params): string {
    const channel = filledParam(params.channel);
    if (channel === undefined) throw refuse("channel_not_found");
    if (this.#notInChannel.has(channel)) throw refuse("not_in_channel");
    return channel;
  }

  /** The bot message at the call's `channel` and `ts`. */
  #message(params: Params): SlackMessage {
    const channel = filledParam(params.channel);
    if (channel === undefined) throw refuse("channel_not_found");
    const message = this.#messages.get(`${channel}/${filledParam(params.ts)}`);
    if (!message) throw refuse("message_not_found");
    return message;
  }

  #streamingMessage(params: Params): SlackMessage {
    const message = this.#message(params);
    if (!message.streaming) throw refuse("message_not_in_streaming_state");
    return message;
  }

  #addMessage(channel: string, threadTs: string | undefined, content: MessageContent, at: number): SlackMessage {
    const message: SlackMessage = {
      channel,
      ts: this.#nextTs(),
      threadTs,
      ...content,
      streaming: false,
      edits: 0,
      appends: 0,
      postedAt: at,
      changedAt: undefined,
      stoppedAt: undefined,
    };
    this.#messages.set(`${channel}/${message.ts}`, message);
    return message;
  }

  /** A message ts as Slack writes them, "1767225000.000100": wall-clock microseconds, each later than the last. */
  #nextTs(): string {
    this.#lastTs = Math.max(this.#lastTs + 1, Date.now() * 1000);
    return `${Math.floor(this.#lastTs / 1e6)}.${String(this.#lastTs % 1e6).padStart(6, "0")}`;
  }

  #messageJson(message: SlackMessage): object {
    return {
      type: "message",
      text: message.text,
      user: this.botUserId,
      bot_id: this.botId,
      team: this.teamId,
      ts: message.ts,
      ...(message.threadTs !== undefined && { thread_ts: message.threadTs }),
      ...(message.blocks !== undefined && { blocks: message.blocks }),
    };
  }
}

function reply(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}
