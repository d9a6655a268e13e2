import type {
  Channel,
  ChannelCapabilities,
  ChannelLimits,
  DownloadOptions,
  OutgoingText,
  SentMessage,
} from "../../src/bridge/channel.js";
import { ChannelError, MediaTooLargeError } from "../../src/bridge/channel.js";
import type { MediaRef, ReplyTarget } from "../../src/bridge/inbound.js";
import { readCapped } from "../../src/bridge/media/capped-body.js";
import type { Logger } from "../../src/log.js";
import { markdownToWhatsApp, measureWhatsApp } from "./format.js";

/**
 * WhatsApp's limits as the pacer keeps them. The Cloud API limits each business–user pair (error 131056; Meta gives
 * no figure, about one message every six seconds is the common reading) and the number's throughput (130429, 80
 * messages a second by default): per user at most 2 at once then one every 8 s (under 10 in any minute), 70 a
 * second for the number. WhatsApp cannot edit messages, so there are no intermediate updates to pace.
 */
export const WHATSAPP_LIMITS: ChannelLimits = {
  perChat: { perSecond: 0.12, burst: 2 },
  perGroup: { perSecond: 0.12, burst: 2 },
  perBot: { perSecond: 70, burst: 10 },
  minUpdateIntervalMs: { private: 1_000, group: 1_000 },
};

/** "Text bodies are at most 4096 characters"; an interactive message's body at most 1024. */
export const WHATSAPP_MAX_TEXT_LENGTH = 4096;
const INTERACTIVE_BODY_LIMIT = 1024;

/**
 * Where media bytes live: Graph answers a short-lived URL on Meta's lookaside host
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-phone-numbers/media/), which
 * must be fetched with the same bearer token. The token goes there and to the Graph API host, nowhere else.
 */
const MEDIA_HOSTS = new Set(["lookaside.fbsbx.com"]);

/** Prefix of the reply ids of suggested questions (see {@link parseDelivery}). */
export const ASK_PREFIX = "ask:";

/** What a {@link WhatsAppChannel} needs. */
export interface WhatsAppChannelOptions {
  accessToken: string;
  phoneNumberId: string;
  /** Graph API root and version (WHATSAPP_API_URL, WHATSAPP_API_VERSION). */
  apiUrl: string;
  apiVersion: string;
  /** Each finished paragraph as a message while the answer streams (at least `minLength` characters), or whole answers. */
  blocks?: { minLength: number } | undefined;
  botId?: string | undefined;
  log?: Logger | undefined;
  /** Told the code of every Graph error (131047 outside the 24-hour window, 131056 pair limit…), for the metrics. */
  onGraphError?: ((code: number) => void) | undefined;
}

/** A Graph API error answer (https://developers.facebook.com/docs/graph-api/guides/error-handling). */
interface GraphError {
  error?: { code?: number; message?: string; error_data?: { details?: string } };
}

/**
 * WhatsApp (Cloud API) as a bridge channel over plain HTTP: text messages rendered from the chatbot's markdown,
 * suggested questions as reply buttons (up to three, titles up to 20 characters) or a list, the read receipt with
 * the typing indicator while the answer is generated, media downloads in two steps. There are no edits: the bridge
 * sends finished messages only.
 */
export class WhatsAppChannel implements Channel {
  readonly name = "whatsapp";
  readonly botId: string;
  readonly limits: ChannelLimits = WHATSAPP_LIMITS;
  readonly #options: WhatsAppChannelOptions;
  readonly #reported = new Set<number>();

  constructor(options: WhatsAppChannelOptions) {
    this.#options = options;
    this.botId = options.botId ?? "default";
  }

  capabilities(_target: ReplyTarget): ChannelCapabilities {
    return {
      canEdit: false,
      nativeDraft: false,
      maxTextLength: WHATSAPP_MAX_TEXT_LENGTH,
      quickReplies: true,
      blocks: this.#options.blocks,
    };
  }

  /** WhatsApp's length of chatbot markdown once rendered, for splitting long answers. */
  measure(markdown: string): number {
    return measureWhatsApp(markdown);
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const body = text.format === "markdown" ? markdownToWhatsApp(text.text) : text.text;
    const result = (await this.#post(target, {
      recipient_type: "individual",
      to: target.chatId,
      ...(interactive(body, text.quickReplies) ?? { type: "text", text: { body, preview_url: false } }),
    })) as { messages?: { id: string }[] };
    const id = result.messages?.[0]?.id;
    if (!id) throw new ChannelError("transient", "WhatsApp answered without a message id");
    return { id };
  }

  edit(): Promise<void> {
    return Promise.reject(new ChannelError("rejected", "WhatsApp messages cannot be edited"));
  }

  draft(): Promise<void> {
    return Promise.reject(new ChannelError("rejected", "WhatsApp has no drafts"));
  }

  /**
   * Marks the user's message read and shows "typing…" (one call; it lasts up to 25 s or until the answer, and the
   * bridge renews it). Without the user's message id there is nothing to attach it to.
   */
  async typing(target: ReplyTarget): Promise<void> {
    if (!target.replyToMessageId) return;
    await this.#post(target, {
      status: "read",
      message_id: target.replyToMessageId,
      typing_indicator: { type: "text" },
    });
  }

  /**
   * Media in two steps, both with the access token: the metadata from the Graph API (its `file_size` refuses a file
   * over the cap before any transfer), then the bytes from the short-lived URL it names, read up to the cap.
   */
  async download(media: MediaRef, { signal, maxBytes }: DownloadOptions): Promise<Uint8Array> {
    const { apiUrl, apiVersion, accessToken } = this.#options;
    const headers = { authorization: `Bearer ${accessToken}` };
    const meta = await this.#fetch(`${apiUrl}/${apiVersion}/${encodeURIComponent(media.platformId)}`, {
      headers,
      signal,
    });
    const { url, file_size: size } = (await meta.json()) as { url?: string; file_size?: number | string };
    if (Number(size) > maxBytes) {
      throw new MediaTooLargeError(maxBytes, `the WhatsApp media is ${size} bytes, over ${maxBytes}`);
    }
    if (!url) throw new ChannelError("rejected", "WhatsApp media has no download URL");
    const host = new URL(url).host;
    if (host !== new URL(apiUrl).host && !(MEDIA_HOSTS.has(host) && url.startsWith("https://"))) {
      throw new ChannelError("rejected", `WhatsApp media URL on ${host} is not Meta's; the token is not sent there`);
    }
    const file = await this.#fetch(url, { headers, signal });
    return readCapped(file, maxBytes, "the WhatsApp media");
  }

  async #post(target: ReplyTarget, payload: object): Promise<unknown> {
    const { apiUrl, apiVersion, accessToken, phoneNumberId } = this.#options;
    const response = await this.#fetch(
      `${apiUrl}/${apiVersion}/${phoneNumberId}/messages`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ messaging_product: "whatsapp", ...payload }),
        signal: AbortSignal.timeout(30_000),
      },
      target,
    );
    return response.json();
  }

  /** fetch with Graph errors mapped to the bridge's kinds; never puts the token or URL with a token in a message. */
  async #fetch(url: string, init: RequestInit, target?: ReplyTarget): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      const reason = error instanceof Error ? error.name : "error";
      throw new ChannelError("transient", `WhatsApp could not be reached (${reason})`);
    }
    if (response.ok) return response;
    const answer = (await response.json().catch(() => ({}))) as GraphError;
    throw this.#mapped(response.status, answer, target);
  }

  #mapped(status: number, answer: GraphError, target: ReplyTarget | undefined): ChannelError {
    const code = answer.error?.code;
    if (code !== undefined) this.#options.onGraphError?.(code);
    const said = `WhatsApp ${status} (#${code ?? "?"}) ${answer.error?.message ?? ""}`.trim();
    switch (code) {
      case 130429:
        return new ChannelError("rate_limited", said, 1_000, { scope: "bot" });
      case 131056:
        // The pair limit: back off for the whole pair window rather than hammering the same user.
        return new ChannelError("rate_limited", said, 6_000);
      case 131047:
        this.#reportOnce(
          131047,
          `WhatsApp refused a message to ${target?.chatId ?? "a user"} outside the 24-hour customer-service window (131047): the user must write first, or the business must send an approved template.`,
        );
        return new ChannelError("rejected", said);
      case 190:
        this.#reportOnce(
          190,
          "WhatsApp answered 190 (invalid OAuth access token): set WHATSAPP_ACCESS_TOKEN to a valid system user token.",
        );
        return new ChannelError("rejected", said);
      default:
        return new ChannelError(status >= 500 ? "transient" : "rejected", said);
    }
  }

  #reportOnce(code: number, message: string): void {
    if (this.#reported.has(code)) return;
    this.#reported.add(code);
    this.#options.log?.error({ channel: this.name, botId: this.botId }, message);
  }
}

/**
 * Suggested questions as an interactive message: up to three reply buttons when every title fits in 20
 * characters, else a list of up to ten rows (titles up to 24). A longer text goes without them rather than cut.
 */
function interactive(body: string, quickReplies: string[] | undefined): object | undefined {
  const questions = (quickReplies ?? [])
    .map((question) => question.trim())
    .filter(Boolean)
    .slice(0, 10);
  if (questions.length === 0 || body.length > INTERACTIVE_BODY_LIMIT) return undefined;
  if (questions.length <= 3 && questions.every((question) => question.length <= 20)) {
    return {
      type: "interactive",
      interactive: {
        type: "button",
        body: { text: body },
        action: { buttons: questions.map((title) => ({ type: "reply", reply: { id: askId(title), title } })) },
      },
    };
  }
  return {
    type: "interactive",
    interactive: {
      type: "list",
      body: { text: body },
      action: {
        button: "Suggestions",
        sections: [
          { title: "Ask me", rows: questions.map((question) => ({ id: askId(question), title: cut(question, 24) })) },
        ],
      },
    },
  };
}

/** The reply id carries the whole question (ids allow 200 characters), so a shortened title still asks all of it. */
function askId(question: string): string {
  return `${ASK_PREFIX}${question.slice(0, 200 - ASK_PREFIX.length)}`;
}

function cut(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
