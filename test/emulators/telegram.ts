import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Agent, fetch } from "undici";
import { closeServer, listenOnLoopback, loopbackUrl } from "../support/loopback-server.js";
import { type ServedDownload, type ServeOptions, serveFile } from "./file-downloads.js";
import { ApiError, badRequest } from "./telegram-errors.js";
import { type EmulatorLimits, FloodControl, retryAfterSeconds } from "./telegram-flood.js";
import { parseHtml } from "./telegram-html.js";
import { parseMarkdown, parseMarkdownV2 } from "./telegram-markdown.js";

export type { EmulatorLimits } from "./telegram-flood.js";

/** setWebhook's `max_connections` when not given: "Defaults to 40" (https://core.telegram.org/bots/api#setwebhook). */
const DEFAULT_MAX_CONNECTIONS = 40;

/** One Bot API call the emulator received, answered or not. */
export interface RecordedCall {
  /** The method as documented ("sendMessage"), whatever case it was called with; as called when unknown. */
  method: string;
  /** The JSON body merged over the query parameters. */
  params: Record<string, unknown>;
  /** performance.now() when the request was complete. */
  at: number;
  ok: boolean;
  /** When !ok. */
  errorCode?: number;
  /** When !ok. */
  description?: string;
}

/** A message the bot sent, in its current state. */
export interface EmulatedMessage {
  messageId: number;
  chatId: number;
  /** Visible text after entity parsing (HTML tags removed, entities decoded; MarkdownV2 escapes removed). */
  text: string;
  /** As sent. */
  rawText: string;
  parseMode: string | undefined;
  replyMarkup: unknown;
  threadId: number | undefined;
  replyToMessageId: number | undefined;
  /** Successful edits so far. */
  edits: number;
  /** A photo message (sendPhoto, or one of a sendMediaGroup's): the photo as sent (a URL or file_id); its caption is `text`. */
  photo?: string | undefined;
  /** The media group a photo of a sendMediaGroup belongs to. */
  mediaGroupId?: string | undefined;
  /** performance.now() */
  sentAt: number;
  editedAt: number | undefined;
}

/** An accepted sendMessageDraft call. */
export interface EmulatedDraft {
  chatId: number;
  draftId: number;
  /** Visible text after entity parsing. */
  text: string;
  /** performance.now() */
  at: number;
}

/** How {@link TelegramEmulator.start} sets the emulator up. */
export interface EmulatorOptions {
  /** Default "123456:TEST-token". */
  token?: string;
  /** Default { id: 8765336106, username: "vercelchatsdkbot", first_name: "Chat SDK" }. */
  bot?: { id: number; username: string; first_name?: string };
  /** Merged over the defaults, limit by limit. */
  limits?: Partial<EmulatorLimits>;
  /** Default: a free port. */
  port?: number;
}

/** The webhook setWebhook registered. */
export interface EmulatedWebhook {
  url: string;
  secretToken: string | undefined;
  allowedUpdates: string[] | undefined;
  dropPendingUpdates: boolean | undefined;
  /** How many deliveries may be under way at once (`max_connections`, 1–100, default 40). */
  maxConnections: number;
}

const NOT_FOUND = { ok: false, error_code: 404, description: "Not Found" };

/** "Photo caption …, 0-1024 characters after entities parsing" (https://core.telegram.org/bots/api#sendphoto). */
const MAX_CAPTION_LENGTH = 1024;
/** sendMediaGroup: "an array describing messages to be sent, must include 2-10 items". */
const MEDIA_GROUP_SIZE = { min: 2, max: 10 };
/** InlineKeyboardButton.callback_data: "1-64 bytes". */
const MAX_CALLBACK_DATA_BYTES = 64;

const DEFAULT_LIMITS: EmulatorLimits = {
  privateChat: { perSecond: 1, burst: 4 },
  group: { max: 20, windowMs: 60_000 },
  bot: { max: 30, windowMs: 1_000 },
  maxTextLength: 4096,
  drafts: { perChat: { perSecond: 2, burst: 3 }, bot: { max: 300, windowMs: 1_000 } },
};

/** getFile refuses bigger files: bots download at most 20 MB (https://core.telegram.org/bots/api#getfile). */
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;

const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

type Params = Record<string, unknown>;

/** What the emulator knows of a chat: the bot's messages and drafts, and the ids of messages it delivered to the bot. */
interface ChatState {
  messages: EmulatedMessage[];
  drafts: EmulatedDraft[];
  received: Set<number>;
}

type Handler = (params: Params, at: number) => unknown;

/**
 * A local Telegram Bot API server (https://core.telegram.org/bots/api) for end-to-end tests and benchmarks: point
 * grammY's `apiRoot` at {@link TelegramEmulator.url}. It keeps the messages and drafts the bot sent, parses their
 * markup as Telegram does (error messages follow tdlib's parsers), enforces flood limits with 429 and retry_after,
 * serves long polling and files, posts updates to a registered webhook, and records every call.
 */
export class TelegramEmulator {
  readonly token: string;
  readonly bot: { id: number; username: string; first_name: string };
  /** Every call in arrival order, including rejected ones. */
  readonly calls: RecordedCall[] = [];
  readonly #limits: EmulatorLimits;
  readonly #server: Server;
  #flood: FloodControl;
  /** Drafts' flood control, apart from messages'. */
  #draftFlood: FloodControl;
  readonly #chats = new Map<number, ChatState>();
  readonly #files = new Map<
    string,
    { fileId: string; uniqueId: string; path: string; bytes: Uint8Array; serve: ServeOptions }
  >();
  /** Every file download served, with how many bytes left (a capped client hangs up early). */
  readonly downloads: ServedDownload[] = [];
  #webhook: EmulatedWebhook | undefined;
  /** Webhook deliveries share at most `max_connections` connections, as Telegram's do (default 40). */
  #deliveries = new Agent({ connections: DEFAULT_MAX_CONNECTIONS });
  #updates: { update_id: number }[] = [];
  #nextUpdateId = 1;
  /** Photo URLs Telegram cannot fetch: sendPhoto and sendMediaGroup refuse them as Telegram does. */
  readonly unreachablePhotos = new Set<string>();
  /** Callback queries delivered and not answered yet, by id. */
  readonly #openQueries = new Set<string>();
  /** answerCallbackQuery calls accepted, in order. */
  readonly answeredQueries: { id: string; text: string | undefined }[] = [];
  #nextQueryId = 1;
  #nextMediaGroup = 1;
  /** The pending long poll; Telegram serves one getUpdates at a time. */
  #poll: { timer: NodeJS.Timeout; settle(error?: ApiError): void } | undefined;

  readonly #methods = new Map<string, { name: string; run: Handler }>(
    Object.entries<Handler>({
      getMe: () => ({
        id: this.bot.id,
        is_bot: true,
        first_name: this.bot.first_name,
        username: this.bot.username,
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      }),
      setWebhook: (params) => this.#setWebhook(params),
      deleteWebhook: (params) => {
        if (flag(params.drop_pending_updates)) this.#updates = [];
        this.#webhook = undefined;
        return true;
      },
      getWebhookInfo: () => ({
        url: this.#webhook?.url ?? "",
        has_custom_certificate: false,
        pending_update_count: this.#updates.length,
        ...(this.#webhook && { max_connections: this.#webhook.maxConnections }),
        ...(this.#webhook?.allowedUpdates && { allowed_updates: this.#webhook.allowedUpdates }),
      }),
      getUpdates: (params) => this.#getUpdates(params),
      sendMessage: (params, at) => this.#sendMessage(params, at),
      sendMessageDraft: (params, at) => this.#sendMessageDraft(params, at),
      editMessageText: (params, at) => this.#editMessageText(params, at),
      sendPhoto: (params, at) => this.#sendPhoto(params, at),
      sendMediaGroup: (params, at) => this.#sendMediaGroup(params, at),
      answerCallbackQuery: (params) => {
        const id = String(params.callback_query_id ?? "");
        if (!this.#openQueries.delete(id)) {
          throw badRequest("query is too old and response timeout expired or query ID is invalid");
        }
        this.answeredQueries.push({ id, text: stringOrUndefined(params.text) });
        return true;
      },
      sendChatAction: (params, at) => {
        if (!CHAT_ACTIONS.has(String(params.action))) throw badRequest("wrong parameter action in request");
        const chatId = chatIdOf(params);
        return this.#flooded(chatId, at, () => true);
      },
      getFile: (params) => {
        const file = this.#files.get(String(params.file_id));
        if (!file) throw badRequest("invalid file_id");
        if (file.bytes.length > MAX_DOWNLOAD_BYTES) throw badRequest("file is too big");
        return {
          file_id: file.fileId,
          file_unique_id: file.uniqueId,
          file_size: file.bytes.length,
          file_path: file.path,
        };
      },
    }).map(([name, run]) => [name.toLowerCase(), { name, run }]),
  );

  private constructor(server: Server, options: EmulatorOptions) {
    this.#server = server;
    this.token = options.token ?? "123456:TEST-token";
    const bot = options.bot ?? { id: 8765336106, username: "vercelchatsdkbot" };
    this.bot = { id: bot.id, username: bot.username, first_name: bot.first_name ?? "Chat SDK" };
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#flood = new FloodControl(this.#limits);
    this.#draftFlood = draftFloodControl(this.#limits);
  }

  /** Starts the emulator on 127.0.0.1, on `port` or a free one. */
  static async start(options: EmulatorOptions = {}): Promise<TelegramEmulator> {
    const emulator = new TelegramEmulator(createServer(), options);
    // A request cut off mid-body leaves nobody to answer.
    emulator.#server.on("request", (req, res) => void emulator.#handle(req, res).catch(() => res.destroy()));
    await listenOnLoopback(emulator.#server, options.port);
    return emulator;
  }

  /** The apiRoot for grammY, "http://127.0.0.1:<port>". */
  get url(): string {
    return loopbackUrl(this.#server);
  }

  /** The registered webhook, if any. */
  get webhook(): EmulatedWebhook | undefined {
    return this.#webhook;
  }

  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Calls answered 429. */
  rateLimited(): RecordedCall[] {
    return this.calls.filter((call) => call.errorCode === 429);
  }

  /** The current state of the messages sent to the chat, in send order. */
  messagesIn(chatId: number | string): EmulatedMessage[] {
    return [...(this.#chats.get(Number(chatId))?.messages ?? [])];
  }

  /** Every accepted draft call in the chat, in order. */
  draftsIn(chatId: number | string): EmulatedDraft[] {
    return [...(this.#chats.get(Number(chatId))?.drafts ?? [])];
  }

  /**
   * POSTs the update as JSON to the registered webhook URL with header X-Telegram-Bot-Api-Secret-Token (unless secret
   * is null; `secret` overrides the registered one). Resolves with the HTTP status and parsed JSON body (or
   * undefined). Throws if no webhook is set. An update without update_id gets the next one; the bot can then reply
   * to the messages in it.
   */
  async deliver(update: object, options: { secret?: string | null } = {}): Promise<{ status: number; body: unknown }> {
    if (!this.#webhook) throw new Error("TelegramEmulator.deliver: no webhook is set");
    const secret = options.secret === undefined ? this.#webhook.secretToken : options.secret;
    const response = await fetch(this.#webhook.url, {
      dispatcher: this.#deliveries,
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(secret != null && { "X-Telegram-Bot-Api-Secret-Token": secret }),
      },
      body: JSON.stringify(this.#incoming(update)),
    });
    return { status: response.status, body: parseJson(await response.text()) };
  }

  /**
   * A callback_query update: `from` taps the inline button with `data` under the bot's message `messageId` in
   * `chatId` (the message goes along as Telegram sends it). Deliver it with {@link deliver} or {@link enqueue}.
   */
  tap(
    chatId: number,
    messageId: number,
    data: string,
    from = { id: chatId, first_name: "Ana" },
  ): { update_id: number; callback_query: { id: string; data: string; [key: string]: unknown } } {
    const message = this.#chats.get(chatId)?.messages[messageId - 1];
    if (!message) throw new Error(`TelegramEmulator.tap: no message ${messageId} in chat ${chatId}`);
    const id = String(this.#nextQueryId++);
    this.#openQueries.add(id);
    // Numbered now, so that delivering it again is a re-delivery of the same update.
    return {
      update_id: this.#nextUpdateId++,
      callback_query: {
        id,
        from: { is_bot: false, ...from },
        chat_instance: `instance-${chatId}`,
        message: this.#messageJson(message),
        data,
      },
    };
  }

  /**
   * Queues an update for getUpdates (long polling); one without update_id gets the next one. As with
   * {@link deliver}, the bot can then reply to the messages in it.
   */
  enqueue(update: object): void {
    this.#updates.push(this.#incoming(update));
    this.#poll?.settle();
  }

  /**
   * Registers bytes as a downloadable file; returns the file_id to put in an update. `declareLength: false` serves
   * it without Content-Length.
   */
  addFile(bytes: Uint8Array, options: { fileName?: string } & ServeOptions = {}): string {
    const n = this.#files.size + 1;
    const extension = /\.[^./]+$/.exec(options.fileName ?? "")?.[0] ?? ".bin";
    const fileId = `file-${n}`;
    this.#files.set(fileId, {
      fileId,
      uniqueId: `unique-${n}`,
      path: `documents/file_${n}${extension}`,
      bytes,
      serve: options,
    });
    return fileId;
  }

  /** Forgets calls, messages, drafts, and the rate-limit state (not the webhook, not files). */
  reset(): void {
    this.calls.length = 0;
    this.#chats.clear();
    this.#flood = new FloodControl(this.#limits);
    this.#draftFlood = draftFloodControl(this.#limits);
  }

  /** Stops the server, cutting keep-alive connections and pending long polls. */
  async close(): Promise<void> {
    // The pending poll's request dies with its connection; only its timer could keep the process alive.
    if (this.#poll) clearTimeout(this.#poll.timer);
    await Promise.all([closeServer(this.#server), this.#deliveries.destroy()]);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const at = performance.now();
    const url = new URL(req.url ?? "/", "http://emulator");
    if (url.pathname.startsWith("/file/")) return this.#download(url.pathname, res);

    const [, token, name] = /^\/bot([^/]*)\/([^/]*)$/.exec(url.pathname) ?? [];
    if (token === undefined || name === undefined) return reply(res, 404, NOT_FOUND);
    const body = parseJson(Buffer.concat(chunks).toString("utf8"));
    // Like Telegram, a body that is not a JSON object is ignored rather than refused.
    const params: Params = {
      ...Object.fromEntries(url.searchParams),
      ...(typeof body === "object" && body !== null && !Array.isArray(body) && body),
    };
    const method = this.#methods.get(name.toLowerCase());
    const call: RecordedCall = { method: method?.name ?? name, params, at, ok: false };
    this.calls.push(call);
    try {
      if (token !== this.token) throw new ApiError(401, "Unauthorized");
      if (!method) throw new ApiError(404, "Not Found");
      const result = await method.run(params, at);
      call.ok = true;
      reply(res, 200, { ok: true, result });
    } catch (caught) {
      const error = caught instanceof ApiError ? caught : new ApiError(500, `Internal Server Error: ${String(caught)}`);
      call.errorCode = error.code;
      call.description = error.description;
      reply(res, error.code, {
        ok: false,
        error_code: error.code,
        description: error.description,
        ...(error.retryAfter !== undefined && { parameters: { retry_after: error.retryAfter } }),
      });
    }
  }

  async #download(path: string, res: ServerResponse): Promise<void> {
    const [, token, filePath] = /^\/file\/bot([^/]*)\/(.+)$/.exec(path) ?? [];
    const file = [...this.#files.values()].find((candidate) => candidate.path === filePath);
    if (token !== undefined && token !== this.token) {
      reply(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    } else if (!file) {
      reply(res, 404, NOT_FOUND);
    } else {
      const headers = { "content-type": "application/octet-stream" };
      await serveFile(res, file.fileId, file.bytes, headers, this.downloads, file.serve);
    }
  }

  /** Numbers an update for the bot and remembers the messages in it, which the bot may then reply to. */
  #incoming(update: object): { update_id: number } {
    const numbered = { update_id: this.#nextUpdateId, ...update };
    this.#nextUpdateId = Math.max(this.#nextUpdateId, numbered.update_id) + 1;
    for (const value of Object.values(update)) {
      const message = value as { message_id?: unknown; chat?: { id?: unknown } } | null;
      const chatId = integer(message?.chat?.id);
      const messageId = integer(message?.message_id);
      if (chatId !== undefined && messageId !== undefined) this.#chat(chatId).received.add(messageId);
    }
    return numbered;
  }

  #chat(chatId: number): ChatState {
    const chat = this.#chats.get(chatId) ?? { messages: [], drafts: [], received: new Set() };
    this.#chats.set(chatId, chat);
    return chat;
  }

  /** The visible text of a new message or draft, refused when too long. */
  #sendableText(params: Params): string {
    const text = visibleText(params);
    if (text.length > this.#limits.maxTextLength) throw badRequest("message is too long");
    return text;
  }

  /**
   * Runs a message-producing call under the flood control the four of them share (drafts: under their own): over any
   * limit it is refused with 429, and only a call that succeeds counts. The caller validates the text first: the Bot API server parses
   * it before the request reaches Telegram's flood control.
   */
  #flooded<T>(chatId: number, at: number, execute: () => T, flood = this.#flood): T {
    const waitMs = flood.waitMs(chatId, at);
    if (waitMs > 0) {
      const seconds = retryAfterSeconds(waitMs);
      throw new ApiError(429, `Too Many Requests: retry after ${seconds}`, seconds);
    }
    const result = execute();
    flood.count(chatId, at);
    return result;
  }

  #sendMessage(params: Params, at: number): object {
    const text = this.#sendableText(params);
    checkKeyboard(params.reply_markup);
    const chatId = chatIdOf(params);
    return this.#flooded(chatId, at, () => {
      const chat = this.#chat(chatId);
      const replyTo = (params.reply_parameters ?? {}) as {
        message_id?: unknown;
        allow_sending_without_reply?: unknown;
      };
      const replyToMessageId = integer(replyTo.message_id);
      const replied =
        replyToMessageId !== undefined &&
        (chat.messages[replyToMessageId - 1] !== undefined || chat.received.has(replyToMessageId));
      if (replyToMessageId !== undefined && !replied && !flag(replyTo.allow_sending_without_reply)) {
        throw badRequest("message to be replied not found");
      }
      const message: EmulatedMessage = {
        messageId: chat.messages.length + 1,
        chatId,
        text,
        rawText: String(params.text),
        parseMode: stringOrUndefined(params.parse_mode),
        replyMarkup: params.reply_markup,
        threadId: integer(params.message_thread_id),
        replyToMessageId: replied ? replyToMessageId : undefined,
        edits: 0,
        sentAt: at,
        editedAt: undefined,
      };
      chat.messages.push(message);
      return this.#messageJson(message);
    });
  }

  #editMessageText(params: Params, at: number): object {
    const text = visibleText(params);
    const chatId = chatIdOf(params);
    return this.#flooded(chatId, at, () => {
      const message = this.#chats.get(chatId)?.messages[(integer(params.message_id) ?? 0) - 1];
      if (!message) throw badRequest("message to edit not found");
      // Telegram's servers, not the Bot API's parser, check an edit's length, hence the raw server error.
      if (text.length > this.#limits.maxTextLength) throw badRequest("MESSAGE_TOO_LONG");
      const rawText = String(params.text);
      const parseMode = stringOrUndefined(params.parse_mode);
      if (
        rawText === message.rawText &&
        parseMode === message.parseMode &&
        JSON.stringify(params.reply_markup) === JSON.stringify(message.replyMarkup)
      ) {
        throw badRequest(
          "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        );
      }
      // An edit without reply_markup removes the keyboard, as on Telegram.
      Object.assign(message, { text, rawText, parseMode, replyMarkup: params.reply_markup, editedAt: at });
      message.edits += 1;
      return this.#messageJson(message);
    });
  }

  /**
   * sendPhoto with a photo by URL or file_id: a URL in {@link unreachablePhotos} is refused as Telegram refuses one
   * it cannot fetch, a caption over 1024 visible characters as too long; the inline keyboard is checked.
   */
  #sendPhoto(params: Params, at: number): object {
    const photo = this.#photo(params.photo);
    const caption = this.#caption(params.caption, params.parse_mode);
    checkKeyboard(params.reply_markup);
    const chatId = chatIdOf(params);
    return this.#flooded(chatId, at, () => this.#messageJson(this.#addPhoto(chatId, photo, caption, params, at)));
  }

  /**
   * sendMediaGroup: 2-10 photos (InputMediaPhoto), each a message of the group and each counted by the flood control;
   * it takes no reply_markup (buttons cannot be attached to a media group).
   */
  #sendMediaGroup(params: Params, at: number): object[] {
    const media = typeof params.media === "string" ? parseJson(params.media) : params.media;
    if (!Array.isArray(media) || media.length < MEDIA_GROUP_SIZE.min || media.length > MEDIA_GROUP_SIZE.max) {
      throw badRequest("media must include 2-10 items");
    }
    const photos = media.map((item: Params) => {
      if (item?.type !== "photo") throw badRequest("unsupported media type in the group");
      return { photo: this.#photo(item.media), caption: this.#caption(item.caption, item.parse_mode), item };
    });
    const chatId = chatIdOf(params);
    const group = String(this.#nextMediaGroup++);
    return this.#flooded(chatId, at, () => {
      const sent = photos.map(({ photo, caption, item }) => {
        const message = this.#addPhoto(chatId, photo, caption, { ...params, ...item, reply_markup: undefined }, at);
        message.mediaGroupId = group;
        return this.#messageJson(message);
      });
      // Every photo of the group is a message to the flood control (the first was counted by #flooded).
      for (let n = 1; n < sent.length; n++) this.#flood.count(chatId, at);
      return sent;
    });
  }

  #photo(value: unknown): string {
    const photo = typeof value === "string" ? value.trim() : "";
    if (photo === "") throw badRequest("there is no photo in the request");
    if (this.unreachablePhotos.has(photo)) throw badRequest("wrong file identifier/HTTP URL specified");
    if (!/^https?:\/\//i.test(photo) && !this.#files.has(photo)) {
      throw badRequest("wrong remote file identifier specified: Wrong string length");
    }
    return photo;
  }

  #caption(value: unknown, parseMode: unknown): { text: string; raw: string } {
    if (value === undefined || value === "") return { text: "", raw: "" };
    const raw = String(value);
    const text = parse(raw, parseMode);
    if ([...text].length > MAX_CAPTION_LENGTH) throw badRequest("message caption is too long");
    return { text, raw };
  }

  #addPhoto(chatId: number, photo: string, caption: { text: string; raw: string }, params: Params, at: number) {
    const chat = this.#chat(chatId);
    const message: EmulatedMessage = {
      messageId: chat.messages.length + 1,
      chatId,
      text: caption.text,
      rawText: caption.raw,
      parseMode: stringOrUndefined(params.parse_mode),
      replyMarkup: params.reply_markup,
      threadId: integer(params.message_thread_id),
      replyToMessageId: undefined,
      edits: 0,
      sentAt: at,
      editedAt: undefined,
      photo,
    };
    chat.messages.push(message);
    return message;
  }

  #sendMessageDraft(params: Params, at: number): true {
    const text = this.#sendableText(params);
    const chatId = chatIdOf(params);
    const draftId = integer(params.draft_id);
    // The Bot API requires a non-zero draft_id; this error's wording is the emulator's own.
    if (!draftId) throw badRequest("draft_id must be a non-zero integer");
    return this.#flooded(
      chatId,
      at,
      () => {
        if (chatId < 0) throw badRequest("TEXTDRAFT_PEER_INVALID");
        this.#chat(chatId).drafts.push({ chatId, draftId, text, at });
        return true;
      },
      this.#draftFlood,
    );
  }

  #messageJson(message: EmulatedMessage): object {
    return {
      message_id: message.messageId,
      date: unixTime(message.sentAt),
      ...(message.editedAt !== undefined && { edit_date: unixTime(message.editedAt) }),
      chat: { id: message.chatId, type: message.chatId > 0 ? "private" : "supergroup" },
      from: { id: this.bot.id, is_bot: true, first_name: this.bot.first_name, username: this.bot.username },
      ...(message.photo === undefined
        ? { text: message.text }
        : {
            photo: [
              { file_id: `photo-${message.chatId}-${message.messageId}`, file_unique_id: "p", width: 800, height: 600 },
            ],
            ...(message.text !== "" && { caption: message.text }),
          }),
      // Messages carry their inline keyboard, as on Telegram (reply keyboards are not part of a message).
      ...(isInlineKeyboard(message.replyMarkup) && { reply_markup: message.replyMarkup }),
      ...(message.threadId !== undefined && { message_thread_id: message.threadId }),
    };
  }

  #setWebhook(params: Params): true {
    const url = String(params.url ?? "");
    if (flag(params.drop_pending_updates)) this.#updates = [];
    const connections = Math.min(100, Math.max(1, Number(params.max_connections ?? DEFAULT_MAX_CONNECTIONS) || 1));
    // An empty URL removes the webhook, as deleteWebhook does.
    this.#webhook =
      url === ""
        ? undefined
        : {
            url,
            secretToken: stringOrUndefined(params.secret_token),
            allowedUpdates: Array.isArray(params.allowed_updates) ? params.allowed_updates.map(String) : undefined,
            dropPendingUpdates:
              params.drop_pending_updates === undefined ? undefined : flag(params.drop_pending_updates),
            maxConnections: connections,
          };
    if (this.#webhook) this.#poll?.settle(new ApiError(409, "Conflict: terminated by setWebhook request"));
    void this.#deliveries.close();
    this.#deliveries = new Agent({ connections });
    return true;
  }

  /** Long polling: confirms the updates below `offset`, then answers at once or when an update arrives or time is up. */
  async #getUpdates(params: Params): Promise<object[]> {
    if (this.#webhook) {
      throw new ApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    this.#poll?.settle(
      new ApiError(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      ),
    );
    const offset = integer(params.offset) ?? 0;
    // A negative offset keeps only the last -offset updates.
    if (offset > 0) this.#updates = this.#updates.filter((update) => update.update_id >= offset);
    else if (offset < 0) this.#updates = this.#updates.slice(offset);
    const timeoutMs = Math.max(0, integer(params.timeout) ?? 0) * 1000;
    if (this.#updates.length === 0 && timeoutMs > 0) {
      await new Promise<void>((resolve, reject) => {
        const poll = {
          timer: setTimeout(() => poll.settle(), timeoutMs),
          settle: (error?: ApiError) => {
            clearTimeout(poll.timer);
            this.#poll = undefined;
            if (error) reject(error);
            else resolve();
          },
        };
        this.#poll = poll;
      });
    }
    return this.#updates.slice(0, Math.min(100, Math.max(1, integer(params.limit) ?? 100)));
  }
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
    return undefined;
  }
}

/** An integer parameter, given as a JSON number or a numeric string. */
function integer(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isInteger(number) ? number : undefined;
}

const flag = (value: unknown) => value === true || value === "true";
const stringOrUndefined = (value: unknown) => (typeof value === "string" ? value : undefined);
const unixTime = (at: number) => Math.floor((performance.timeOrigin + at) / 1000);

const isInlineKeyboard = (markup: unknown) =>
  typeof markup === "object" && markup !== null && "inline_keyboard" in markup;

/**
 * Refuses an inline keyboard Telegram would: a button needs a text and exactly one kind (here `url` as http(s), or
 * `callback_data` of 1-64 bytes). Reply keyboards pass unchecked.
 */
function checkKeyboard(markup: unknown): void {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (rows === undefined) return;
  if (!Array.isArray(rows)) throw badRequest('field "inline_keyboard" must be an Array');
  for (const button of rows.flat() as Params[]) {
    if (typeof button?.text !== "string" || button.text === "")
      throw badRequest("can't parse inline keyboard button: Text must be non-empty");
    if (button.url !== undefined && !/^https?:\/\/[^\s]+$/i.test(String(button.url))) {
      throw badRequest("inline keyboard button URL is invalid");
    }
    const data = button.callback_data;
    if (
      data !== undefined &&
      (typeof data !== "string" || data === "" || Buffer.byteLength(data) > MAX_CALLBACK_DATA_BYTES)
    ) {
      throw badRequest("BUTTON_DATA_INVALID");
    }
    if ((button.url === undefined) === (data === undefined)) {
      throw badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
    }
  }
}

/** The chat of a call; only numeric ids exist here, the emulator knows no @usernames. */
function chatIdOf(params: Params): number {
  if (params.chat_id === undefined || params.chat_id === "") throw badRequest("chat_id is empty");
  const chatId = integer(params.chat_id);
  if (!chatId) throw badRequest("chat not found");
  return chatId;
}

/** The text a user would see once Telegram parsed the call's text in its parse_mode; throws Telegram's refusals. */
function visibleText(params: Params): string {
  const text = String(params.text ?? "");
  if (text === "") throw badRequest("message text is empty");
  if (Buffer.byteLength(text) > 1 << 15) throw badRequest("text is too long");
  const visible = parse(text, params.parse_mode);
  if (visible.trim() === "") throw badRequest("message text is empty");
  return visible;
}

/** The visible text of `text` in the parse mode (HTML, MarkdownV2, Markdown or none); throws Telegram's refusals. */
function parse(text: string, parseMode: unknown): string {
  switch (String(parseMode ?? "").toLowerCase()) {
    case "":
    case "none":
      return text;
    case "html":
      return parseHtml(text);
    case "markdownv2":
      return parseMarkdownV2(text);
    case "markdown":
      return parseMarkdown(text);
    default:
      throw badRequest("unsupported parse_mode");
  }
}

/** Drafts' flood control: the drafts' budgets as a private chat's and the bot's (drafts go to private chats only). */
function draftFloodControl(limits: EmulatorLimits): FloodControl {
  return new FloodControl({ ...limits, privateChat: limits.drafts.perChat, bot: limits.drafts.bot });
}
