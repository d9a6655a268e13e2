/**
 * The viewings feature's keys in the bridge store (a Keyv value, and the ids of its mails in the outbox). Every user of the store keeps its keys in a file like this one; test/architecture/store-keys.test.ts
 * checks that no two of them collide (see src/bridge/store/key-prefixes.ts).
 */

/** `viewing:<conversation>`: the conversation's "Book a viewing" flow under way (viewings/viewing-desk.ts). */
export const VIEWING_PREFIX = "viewing:";
/** `viewing:<channel>:<bot>:<event id>`: the mail asking the agency for a viewing (viewings/viewing-desk.ts). */
export const VIEWING_MAIL_PREFIX = "viewing:";
