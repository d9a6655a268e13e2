import { z } from "zod";
import type { Refusal } from "../../src/plugin/plugin-api.js";

/**
 * An id (a wa_id such as "15550002222", a business-scoped user id such as "US.13491208655302741918", a wamid, a Graph
 * media id): visible ASCII, no spaces. Its exact form is Meta's to change, but an empty string, an emoji or a lone
 * surrogate is no id: the bridge builds conversation keys and Graph URLs from them.
 */
const id = z.string().regex(/^[\x21-\x7e]+$/, "must be an id");

/** A media object of a message: its Graph id is what the bridge downloads. */
const media = z.looseObject({
  id,
  mime_type: z.string().optional(),
  caption: z.string().optional(),
});

/** A tapped reply button or list row; the id of a suggested question carries the question itself (`ask:…`), text. */
const reply = z.looseObject({ id: z.string(), title: z.string() });

/**
 * The fields of a message the bridge reads
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages). `from` is
 * the sender's wa_id (digits) and `from_user_id` their business-scoped user id (`US.…`): ids, as are message ids.
 */
const message = z.looseObject({
  id,
  type: z.string(),
  /** When the user sent it, in Unix seconds as a string (Meta's clock, the one its 24-hour window runs on). */
  timestamp: z.string().optional(),
  from: id.optional(),
  from_user_id: id.optional(),
  text: z.looseObject({ body: z.string().optional() }).optional(),
  interactive: z
    .looseObject({ type: z.string().optional(), button_reply: reply.optional(), list_reply: reply.optional() })
    .optional(),
  button: z.looseObject({ text: z.string().optional(), payload: z.string().optional() }).optional(),
  image: media.optional(),
  audio: media.extend({ voice: z.boolean().optional() }).optional(),
  video: media.optional(),
  document: media.extend({ filename: z.string().optional() }).optional(),
  location: z
    .looseObject({
      latitude: z.number(),
      longitude: z.number(),
      name: z.string().optional(),
      address: z.string().optional(),
    })
    .optional(),
  contacts: z
    .array(
      z.looseObject({
        name: z.looseObject({ formatted_name: z.string().optional() }).optional(),
        phones: z.array(z.looseObject({ phone: z.string().optional() })).optional(),
      }),
    )
    .optional(),
});

/** A status update of a message the bot sent (sent, delivered, read, failed). */
const status = z.looseObject({
  id,
  status: z.string(),
  recipient_id: id.optional(),
  errors: z.array(z.looseObject({ code: z.int(), title: z.string().optional() })).optional(),
});

/** The value of a `messages` change: the messages, statuses and senders' profiles for one phone number id. */
const messagesValue = z.looseObject({
  metadata: z.looseObject({ phone_number_id: id }),
  contacts: z
    .array(
      z.looseObject({
        profile: z.looseObject({ name: z.string().optional() }).optional(),
        wa_id: id.optional(),
        user_id: id.optional(),
      }),
    )
    .optional(),
  messages: z.array(message).optional(),
  statuses: z.array(status).optional(),
});

/**
 * A change of an entry. Only `messages` changes are read, so only their value is checked; other fields
 * (user_id_update, account_update…) pass with their value unread.
 */
const change = z.looseObject({ field: z.string(), value: z.unknown() }).transform((input, context) => {
  if (input.field !== "messages") return { field: input.field, value: undefined };
  const value = messagesValue.safeParse(input.value);
  if (value.success) return { field: input.field, value: value.data };
  for (const issue of value.error.issues) {
    context.issues.push({ code: "custom", message: issue.message, input: input.value, path: ["value", ...issue.path] });
  }
  return z.NEVER;
});

/** The object every WhatsApp Business Account delivery names. */
export const WHATSAPP_OBJECT = "whatsapp_business_account";

/** The fields of a webhook delivery the bridge reads (https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/overview). */
export const whatsappDelivery = z.looseObject({
  object: z.string(),
  entry: z.array(z.looseObject({ changes: z.array(change) })),
});

export type WhatsAppDelivery = z.output<typeof whatsappDelivery>;
export type WhatsAppMessagesValue = z.output<typeof messagesValue>;
export type WhatsAppMessage = z.output<typeof message>;
export type WhatsAppMedia = z.output<typeof media>;

/**
 * Checks a delivery against {@link whatsappDelivery}: the whole delivery must fit, so that none of it is used when
 * part of it is not what WhatsApp documents. An `object` other than a WhatsApp Business Account's is an unknown type.
 */
export function readDelivery(body: unknown): { ok: true; delivery: WhatsAppDelivery } | ({ ok: false } & Refusal) {
  const parsed = whatsappDelivery.safeParse(body);
  if (!parsed.success) return { ok: false, reason: "schema", issues: parsed.error.issues };
  if (parsed.data.object !== WHATSAPP_OBJECT) return { ok: false, reason: "unknown_type", issues: [] };
  return { ok: true, delivery: parsed.data };
}
