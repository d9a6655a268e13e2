import { readFileSync } from "node:fs";
import type { Update } from "grammy/types";

/** The recorded Telegram updates of the Vercel Chat SDK (MIT; see the folder's README.md). */
const FIXTURES = new URL("../../fixtures/vercel-chat/", import.meta.url);

interface ReplayFixture {
  botName: string;
  botUserId: string;
  mention: Update;
  followUp: Update;
}

/** `telegram.json`: a private-chat message that @mentions the bot, and a follow-up without mention. */
export function replayFixture(): ReplayFixture {
  return JSON.parse(readFileSync(new URL("telegram.json", FIXTURES), "utf8")) as ReplayFixture;
}

/** The photo update of `telegram-sample-messages.md` (sanitized from a captured webhook). */
export function photoFixture(): Update {
  const markdown = readFileSync(new URL("telegram-sample-messages.md", FIXTURES), "utf8");
  const json = /```json\n([\s\S]*?)\n```/.exec(markdown)?.[1];
  if (!json) throw new Error("no JSON block in telegram-sample-messages.md");
  return JSON.parse(json) as Update;
}

/** The bot of the fixtures, as getMe reports it. */
export const FIXTURE_BOT = { id: 8765336106, username: "vercelchatsdkbot" };

const person = { id: 4242, is_bot: false, first_name: "Ada", last_name: "Lovelace", username: "ada" };
const group = { id: -1001234567890, type: "supergroup" as const, title: "Homes", is_forum: true as const };

let nextUpdateId = 500;

/** Fields of a hand-made message (loosely typed: tests build shapes grammY's strict unions reject). */
type MessageFields = Record<string, unknown>;

/** A hand-made update: a text message from Ada in a group unless `message` says otherwise. */
export function groupUpdate(message: MessageFields): Update {
  const id = ++nextUpdateId;
  return {
    update_id: id,
    message: { message_id: id, date: 1767225000, chat: group, from: person, ...message },
  } as Update;
}

/** A hand-made private-chat update from Ada. */
export function privateUpdate(message: MessageFields): Update {
  return groupUpdate({ chat: { id: person.id, type: "private", first_name: person.first_name }, ...message });
}

export const ADA = person;
export const GROUP = group;

/** A private-chat update from the person whose chat is `chatId` (tests take a new chat per conversation). */
export function privateUpdateIn(chatId: number, message: MessageFields): Update {
  const user = { id: chatId, is_bot: false, first_name: "Ana" };
  return groupUpdate({ chat: { id: chatId, type: "private", first_name: "Ana" }, from: user, ...message });
}
