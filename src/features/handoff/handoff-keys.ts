/**
 * The handoff feature's keys in the bridge store (Keyv values, and the ids of its mails in the outbox). Every user of the store keeps its keys in a file like this one; test/architecture/store-keys.test.ts
 * checks that no two of them collide (see src/bridge/store/key-prefixes.ts).
 */

/** `handoff:<conversation>`: the conversation's handoff to a person (handoff-record.ts). */
export const HANDOFF_PREFIX = "handoff:";
/** The list of conversations with a handoff (handoff-desk.ts); no conversation key is "active". */
export const HANDOFF_INDEX_KEY = "handoff:active";
/** `handoff-confirmed:<mail id>`: the user was told a late handoff mail went out (late-handoff-mail.ts). */
export const HANDOFF_CONFIRMED_PREFIX = "handoff-confirmed:";
/** `unanswered:<conversation>`: the chatbot's answers without an answer in a row (handoff-desk.ts). */
export const UNANSWERED_PREFIX = "unanswered:";
/** `handoff:<channel>:<bot>:<event id>`: the mail asking a person to take over (handoff-desk.ts). */
export const HANDOFF_MAIL_PREFIX = "handoff:";
/** `handoff-follow-up:<conversation>:<key>`: the mail with the user's messages after a handoff (handoff-desk.ts). */
export const HANDOFF_FOLLOW_UP_MAIL_PREFIX = "handoff-follow-up:";
