import { cardTapMessage, type InboundMessage, type MediaRef, type Refusal } from "../../src/plugin/plugin-api.js";
import { ASK_PREFIX } from "./outbound.js";
import { readDelivery, type WhatsAppMedia, type WhatsAppMessage } from "./schema.js";

/** A status update of a message the bot sent: recorded for metrics, never answered. */
export interface SentMessageStatus {
  messageId: string;
  status: string;
  errorCode: number | undefined;
}

/** What one delivery holds for the bridge. */
export interface ParsedDelivery {
  messages: InboundMessage[];
  statuses: SentMessageStatus[];
  /** Messages left out, with why (a reaction, an unsupported type, another phone number…). */
  ignored: string[];
  /** Set when the delivery does not fit what the bridge reads: then nothing of it is used. */
  malformed?: Refusal | undefined;
}

const CHANNEL = "whatsapp";

/**
 * Reads every entry and change of a webhook delivery (one delivery may carry several messages, in order), once it
 * fits the schema of the fields the bridge reads ({@link readDelivery}; otherwise it is `malformed` and nothing of it
 * is used: a sender of `{}` must not become a conversation). Each
 * message becomes an {@link InboundMessage} whose event id is its `wamid`, the key WhatsApp retries under for days.
 * Button and list replies are asked as the question they carry (or their title), template buttons as their text;
 * photos, voice notes, audio, video and documents become media (with their caption as text), photos marked as an
 * album because WhatsApp delivers pictures sent together as separate messages; a named place or a shared contact
 * becomes a line of text. Stickers, bare map pins and messages WhatsApp itself calls `unsupported` become an
 * `unsupported` item, answered with what the bot can read. Reactions, orders and system messages are left out, as
 * are messages to another phone number id than this bot's (one Meta app may serve several numbers).
 */
export function parseDelivery(
  body: unknown,
  context: { botId: string; phoneNumberId: string; now?: () => Date },
): ParsedDelivery {
  const parsed: ParsedDelivery = { messages: [], statuses: [], ignored: [] };
  const read = readDelivery(body);
  if (!read.ok) return { ...parsed, malformed: read };
  for (const change of read.delivery.entry.flatMap((entry) => entry.changes)) {
    const value = change.value;
    if (change.field !== "messages" || !value) continue;
    if (value.metadata?.phone_number_id !== context.phoneNumberId) {
      parsed.ignored.push(`messages for phone number id ${value.metadata?.phone_number_id}`);
      continue;
    }
    for (const status of value.statuses ?? []) {
      parsed.statuses.push({ messageId: status.id, status: status.status, errorCode: status.errors?.[0]?.code });
    }
    for (const message of value.messages ?? []) {
      const from = message.from ?? message.from_user_id;
      const content = contentOf(message);
      if (!from || !content) {
        parsed.ignored.push(`${message.type} message`);
        continue;
      }
      const contact = value.contacts?.find((candidate) => candidate.wa_id === from || candidate.user_id === from);
      parsed.messages.push({
        channel: CHANNEL,
        botId: context.botId,
        eventId: message.id,
        // The user's message id is what read receipts and the typing indicator refer to.
        target: { chatId: from, isGroup: false, replyToMessageId: message.id },
        user: { id: from, name: contact?.profile?.name, ...reachable(from) },
        text: content.text,
        media: content.media,
        ...(content.button && { button: content.button }),
        album: message.type === "image" ? "images" : undefined,
        receivedAt: context.now?.() ?? new Date(),
        sentAt: sentAt(message.timestamp),
      });
    }
  }
  return parsed;
}

function contentOf(message: WhatsAppMessage): { text: string; media: MediaRef[]; button?: string } | undefined {
  const text = (value: string | undefined) => (value?.trim() ? { text: value.trim(), media: [] } : undefined);
  switch (message.type) {
    case "text":
      return text(message.text?.body);
    case "interactive": {
      // Our suggested questions carry the whole question in their id; other replies are asked as their title.
      const reply = message.interactive?.button_reply ?? message.interactive?.list_reply;
      // A listing card's button ("Similar homes") carries its action and listing.
      const tap = cardTapMessage(reply?.id ?? "");
      if (tap) return { ...tap, media: [] };
      return text(reply?.id.startsWith(ASK_PREFIX) ? reply.id.slice(ASK_PREFIX.length) : reply?.title);
    }
    case "button":
      return text(message.button?.text ?? message.button?.payload);
    case "image":
      return media("image", message.image);
    case "audio":
      return media(message.audio?.voice ? "voice" : "audio", message.audio);
    case "video":
      return media("video", message.video);
    case "document":
      return media("document", message.document, message.document?.filename);
    case "location": {
      const place = message.location;
      if (!place) return undefined;
      const named = [place.name, place.address].filter(Boolean).join(", ");
      // Coordinates alone mean nothing to the chatbot; the user is asked for the address instead.
      if (!named) return unsupported("location", message.id);
      return text(`📍 ${place.latitude}, ${place.longitude} (${named})`);
    }
    case "sticker":
    case "unsupported":
      return unsupported(message.type, message.id);
    case "contacts": {
      const cards = (message.contacts ?? []).map((card) =>
        [card.name?.formatted_name, ...(card.phones ?? []).map((phone) => phone.phone)].filter(Boolean).join(" "),
      );
      return text(cards.length > 0 ? `Contact: ${cards.join("; ")}` : undefined);
    }
    default:
      return undefined;
  }
}

/**
 * A message's `timestamp` (Unix seconds) as a date; undefined when absent or not a number of seconds. It is Meta's
 * clock that opens and closes the 24-hour window, so its time is kept as it is, even if this host's clock differs.
 */
function sentAt(timestamp: string | undefined): Date | undefined {
  return timestamp && /^\d{1,12}$/.test(timestamp) ? new Date(Number(timestamp) * 1000) : undefined;
}

/**
 * The user's phone number and a wa.me link, when `from` is one (a wa_id is the number in international form without
 * "+"); users known only by a business-scoped user id (`US.…`) have neither.
 */
function reachable(from: string): { handle?: string; link?: string } {
  return /^\d{6,15}$/.test(from) ? { handle: `+${from}`, link: `https://wa.me/${from}` } : {};
}

function unsupported(label: string, messageId: string) {
  return { text: "", media: [{ kind: "unsupported" as const, label, platformId: messageId }] };
}

function media(kind: MediaRef["kind"], file: WhatsAppMedia | undefined, fileName?: string | undefined) {
  if (!file) return undefined;
  return {
    text: file.caption?.trim() ?? "",
    media: [{ kind, platformId: file.id, mimeType: file.mime_type, fileName }],
  };
}
