/**
 * The outbox's keys in the store it is given (listed with every other key in src/bridge/store/key-prefixes.ts, which
 * takes them from here).
 */

/** `mail-outbox:mail:<mail id>`: a mail waiting for another attempt (mail-outbox.ts). */
export const MAIL_OUTBOX_ENTRY_PREFIX = "mail-outbox:mail:";
/** The list of the mails waiting in the outbox (mail-outbox.ts). */
export const MAIL_OUTBOX_INDEX_KEY = "mail-outbox:pending";
/** `mail-outbox:<mail id>`: a mail submitted once (mail-outbox.ts). */
export const MAIL_OUTBOX_CLAIM_PREFIX = "mail-outbox:";
