import { API_CONSTANTS } from "grammy/web";
import { z } from "zod";
import type { Refusal } from "../../src/plugin/plugin-api.js";

/**
 * Telegram's ids are integers of up to 52 significant bits (chat ids exceed 2^31), exact as JS numbers: safe
 * integers (https://core.telegram.org/bots/api#chat). A string, a fraction or null is not an id.
 */
const id = z.int();

const user = z.looseObject({
  id,
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

/** Offsets and lengths in UTF-16 code units (https://core.telegram.org/bots/api#messageentity). */
const entity = z.looseObject({
  type: z.string(),
  offset: z.int().nonnegative(),
  length: z.int().nonnegative(),
  /** Only on `text_mention`. */
  user: z.looseObject({ id }).optional(),
});

/** Voice, audio, video, video note, document: what the media pipeline reads of a file. */
const file = z.looseObject({
  file_id: z.string().min(1),
  mime_type: z.string().optional(),
  file_size: z.int().nonnegative().optional(),
  file_name: z.string().optional(),
  duration: z.number().nonnegative().optional(),
});

const photoSize = z.looseObject({ file_id: z.string().min(1), file_size: z.int().nonnegative().optional() });

/** Kinds whose presence is all the bridge reads (it answers that it cannot forward them). */
const present = z.looseObject({}).optional();

/** The fields of a Message the bridge reads (https://core.telegram.org/bots/api#message); others pass unread. */
const message = z.looseObject({
  message_id: id,
  chat: z.looseObject({ id, type: z.string() }),
  from: user.optional(),
  is_automatic_forward: z.boolean().optional(),
  is_topic_message: z.boolean().optional(),
  message_thread_id: id.optional(),
  media_group_id: z.string().optional(),
  reply_to_message: z.looseObject({ from: user.optional(), forum_topic_created: present }).optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(entity).optional(),
  caption_entities: z.array(entity).optional(),
  photo: z.array(photoSize).optional(),
  voice: file.optional(),
  audio: file.optional(),
  video: file.optional(),
  video_note: file.optional(),
  document: file.optional(),
  venue: z.looseObject({ title: z.string().optional(), address: z.string().optional() }).optional(),
  contact: z
    .looseObject({
      first_name: z.string().optional(),
      last_name: z.string().optional(),
      phone_number: z.string().optional(),
    })
    .optional(),
  sticker: present,
  location: present,
  poll: present,
  dice: present,
  game: present,
});

/** https://core.telegram.org/bots/api#messagegenerationstopped */
const stoppedGeneration = z.looseObject({
  chat: z.looseObject({ id }),
  message_thread_id: id.optional(),
});

/**
 * A tap on an inline button (https://core.telegram.org/bots/api#callbackquery): its `data` and the message the
 * button was under (absent when that message is too old to be sent along).
 */
const callbackQuery = z.looseObject({
  id: z.string().min(1),
  from: user,
  message: z
    .looseObject({
      message_id: id,
      chat: z.looseObject({ id, type: z.string() }),
      message_thread_id: id.optional(),
      is_topic_message: z.boolean().optional(),
    })
    .optional(),
  data: z.string().optional(),
});

/** The fields of an Update the bridge reads (https://core.telegram.org/bots/api#update). */
export const telegramUpdate = z.looseObject({
  update_id: z.int().nonnegative(),
  message: message.optional(),
  stopped_message_generation: stoppedGeneration.optional(),
  callback_query: callbackQuery.optional(),
});

/** An update as the bridge reads it: every field it uses has the type Telegram documents. */
export type TelegramUpdate = z.output<typeof telegramUpdate>;
export type TelegramMessage = z.output<typeof message>;
export type TelegramUser = z.output<typeof user>;
export type TelegramEntity = z.output<typeof entity>;

/** Every kind of update Telegram documents (message, edited_message, callback_query…), as grammY lists them. */
const UPDATE_KINDS: ReadonlySet<string> = new Set(API_CONSTANTS.ALL_UPDATE_TYPES);

/**
 * Checks a webhook body or a polled update against {@link telegramUpdate}. An update must carry one of the update
 * kinds Telegram documents; one with none (only `update_id`, or only unknown keys) is an unknown type. Kinds the
 * bridge does not read (edits, callback queries…) pass here and are ignored later, as Telegram may send them.
 */
export function readUpdate(body: unknown): { ok: true; update: TelegramUpdate } | ({ ok: false } & Refusal) {
  const parsed = telegramUpdate.safeParse(body);
  if (!parsed.success) return { ok: false, reason: "schema", issues: parsed.error.issues };
  const known = Object.keys(parsed.data).some((key) => UPDATE_KINDS.has(key));
  if (!known) return { ok: false, reason: "unknown_type", issues: [] };
  return { ok: true, update: parsed.data };
}
