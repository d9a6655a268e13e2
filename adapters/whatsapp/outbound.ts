import { OperatorProblems, statusKind } from "../../src/plugin/channel-errors.js";
import {
  type AlertTemplate,
  CARD_LABELS,
  type CardAction,
  type CardLabels,
  type CardSurface,
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelLimits,
  cardActionId,
  cardFacts,
  cardKind,
  cutText,
  type DownloadOptions,
  type ListingCard,
  type Logger,
  type MediaRef,
  MediaTooLargeError,
  type OutgoingText,
  type ReplyTarget,
  readCapped,
  type SentMessage,
} from "../../src/plugin/plugin-api.js";
import { markdownToWhatsApp, measureWhatsApp } from "./format.js";
import { type TemplateRef, templateMessage } from "./template-message.js";

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

/**
 * The customer-service window: free-form messages (text, media, interactive) may go for 24 hours after the user's
 * last message; after that only an approved template, or Graph refuses with 131047.
 */
export const WHATSAPP_FREE_FORM_WINDOW_MS = 24 * 60 * 60 * 1000;

/** "Text bodies are at most 4096 characters"; an interactive message's body at most 1024. */
export const WHATSAPP_MAX_TEXT_LENGTH = 4096;
const INTERACTIVE_BODY_LIMIT = 1024;

/**
 * Where media bytes live: Graph answers a short-lived URL on Meta's lookaside host
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-phone-numbers/media/), which
 * must be fetched with the same bearer token. The token goes there and to the Graph API host, nowhere else.
 */
const MEDIA_HOSTS = new Set(["lookaside.fbsbx.com"]);

/** Reply buttons: at most 3, titles up to 20 characters, ids up to 256; a footer up to 60 characters. */
const MAX_BUTTONS = 3;
const BUTTON_TITLE_LIMIT = 20;
const BUTTON_ID_LIMIT = 256;
const FOOTER_LIMIT = 60;
/** Images WhatsApp takes: JPEG and PNG, up to 5 MB (supported media types, Cloud API). */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png"]);
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Longest time a card's image may take to answer the check before it is sent. */
const IMAGE_CHECK_MS = 5_000;

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
  /** The approved template alerts go as outside the 24-hour window (WHATSAPP_ALERT_TEMPLATE); none: they are skipped. */
  alertTemplate?: TemplateRef | undefined;
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
  readonly #problems: OperatorProblems;

  /** The configured alert template, sent as a template message with the bridge's variables. */
  readonly alertTemplate: AlertTemplate | undefined;

  constructor(options: WhatsAppChannelOptions) {
    this.#options = options;
    this.botId = options.botId ?? "default";
    this.#problems = new OperatorProblems(options.log, { channel: this.name, botId: this.botId });
    const template = options.alertTemplate;
    this.alertTemplate = template && {
      language: template.language,
      send: (target, parameters) => this.#message(target, templateMessage(template, parameters)),
    };
  }

  /**
   * Listing cards, one message each: an interactive reply-button message with the photo as its image header, the
   * card in its body (up to 1,024 characters) with the "Details" address written out (a reply button cannot be a
   * link), its MLS number as the footer and a reply button per action (at most three, titles up to 20 characters).
   * WhatsApp fetches the image only after accepting the send and reports a failure later in a status webhook, so the
   * image is checked first (it must answer with a JPEG or PNG of at most 5 MB within 5 s): one that does not is
   * refused as `media`, and the bridge sends the card again without it — as the same message without the header.
   */
  readonly cards: CardSurface = {
    perMessage: 1,
    send: async (target, cards, actions, labels = CARD_LABELS) => {
      const [card] = cards;
      if (!card) throw new ChannelError("rejected", "no listing card to send");
      if (card.image) await checkImage(card.image);
      return this.#message(target, cardMessage(card, actions, labels));
    },
  };

  capabilities(_target: ReplyTarget): ChannelCapabilities {
    return {
      canEdit: false,
      nativeDraft: false,
      maxTextLength: WHATSAPP_MAX_TEXT_LENGTH,
      quickReplies: true,
      // Past it only an approved template may go: alerts then go as the configured one, or are skipped.
      freeFormWindowMs: WHATSAPP_FREE_FORM_WINDOW_MS,
      blocks: this.#options.blocks,
    };
  }

  /** WhatsApp's length of chatbot markdown once rendered, for splitting long answers. */
  measure(markdown: string): number {
    return measureWhatsApp(markdown);
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const body = text.format === "markdown" ? markdownToWhatsApp(text.text) : text.text;
    return this.#message(
      target,
      interactive(body, text.quickReplies) ?? { type: "text", text: { body, preview_url: false } },
    );
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

  /** Sends one message of any type to the user of `target`; returns its wamid. */
  async #message(target: ReplyTarget, message: object): Promise<SentMessage> {
    const result = (await this.#post(target, { recipient_type: "individual", to: target.chatId, ...message })) as {
      messages?: { id: string }[];
    };
    const id = result.messages?.[0]?.id;
    if (!id) throw new ChannelError("transient", "WhatsApp answered without a message id");
    return { id };
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
        this.#problems.report({
          key: "131047",
          message: `WhatsApp refused a message to ${target?.chatId ?? "a user"} outside the 24-hour customer-service window (131047): the user must write first; alerts go as WHATSAPP_ALERT_TEMPLATE there when it is set.`,
        });
        return new ChannelError("rejected", said, undefined, { outsideWindow: true });
      case 190:
        this.#problems.report({
          key: "190",
          message:
            "WhatsApp answered 190 (invalid OAuth access token): set WHATSAPP_ACCESS_TOKEN to a valid system user token.",
        });
        return new ChannelError("rejected", said);
      default:
        return new ChannelError(statusKind(status), said);
    }
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

/**
 * A card as a message: reply buttons with the image as header when there are actions to offer, else an image with
 * the card as caption, or text.
 */
function cardMessage(card: ListingCard, actions: readonly CardAction[], labels: CardLabels): object {
  const body = cardBody(card, labels);
  const buttons = actions
    .flatMap((action) => {
      const id = cardActionId(action, card.mlsNumber, BUTTON_ID_LIMIT);
      return id ? [{ type: "reply", reply: { id, title: cut(labels[action], BUTTON_TITLE_LIMIT) } }] : [];
    })
    .slice(0, MAX_BUTTONS);
  const footer = card.mlsNumber ? { footer: { text: cut(`MLS ${card.mlsNumber}`, FOOTER_LIMIT) } } : {};
  if (buttons.length > 0) {
    return {
      type: "interactive",
      interactive: {
        type: "button",
        ...(card.image && { header: { type: "image", image: { link: card.image } } }),
        body: { text: body },
        ...footer,
        action: { buttons },
      },
    };
  }
  if (card.image) return { type: "image", image: { link: card.image, caption: body } };
  return { type: "text", text: { body, preview_url: false } };
}

/**
 * A card's text in WhatsApp's markup, within an interactive body's 1,024 characters: the facts in bold, the address,
 * the kind, and the Details address (kept whole: the address is shortened first, then the kind).
 */
function cardBody(card: ListingCard, labels: CardLabels): string {
  const facts = `*${cutText(cardFacts(card), 200)}*`;
  const details = /^https?:\/\//i.test(card.url) ? `${labels.details}: ${card.url}` : "";
  const used = (lines: string[]) => lines.reduce((sum, line) => sum + [...line].length + 1, 0);
  const room = (lines: string[]) => Math.max(0, INTERACTIVE_BODY_LIMIT - used(lines));
  const address = cutText(card.address, room([facts, details, ""]));
  const kind = cutText(cardKind(card), room([facts, details, address]));
  const lines = [facts, address, kind, details].filter(Boolean);
  return cutText(lines.join("\n"), INTERACTIVE_BODY_LIMIT);
}

/**
 * Checks that WhatsApp will be able to fetch a card's image: it answers 2xx within 5 s with a JPEG or PNG of at most
 * 5 MB (as far as its headers say; the body is not read). Throws ChannelError `media` otherwise.
 */
async function checkImage(url: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(IMAGE_CHECK_MS), redirect: "follow" });
  } catch (error) {
    const reason = error instanceof Error ? error.name : "error";
    throw new ChannelError("media", `the card's image could not be fetched (${reason})`);
  }
  await response.body?.cancel().catch(() => undefined);
  const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const size = Number(response.headers.get("content-length") ?? Number.NaN);
  if (!response.ok) throw new ChannelError("media", `the card's image answered HTTP ${response.status}`);
  if (!IMAGE_TYPES.has(type))
    throw new ChannelError("media", `the card's image is ${type || "untyped"}, not JPEG or PNG`);
  if (size > MAX_IMAGE_BYTES) throw new ChannelError("media", `the card's image is ${size} bytes, over 5 MB`);
}

/** The reply id carries the whole question (ids allow 200 characters), so a shortened title still asks all of it. */
function askId(question: string): string {
  return `${ASK_PREFIX}${question.slice(0, 200 - ASK_PREFIX.length)}`;
}

function cut(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
