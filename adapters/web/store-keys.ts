/**
 * The web chat's keys in the bridge store (Keyv values, a claim, and on Redis the rate limiter's counts). Every user of the store keeps its keys in a file like this one; test/architecture/store-keys.test.ts
 * checks that no two of them collide (see src/bridge/store/key-prefixes.ts).
 */

/** The key that signs web chat visitors' identities when WEB_CHAT_SECRET is unset (adapters/web/visitor-identity.ts). */
export const WEB_VISITOR_KEY = "webchat:visitor-key";
/** `webchat:file:<visitor>:<file id>`: what a web chat visitor uploaded, awaiting its message (adapters/web/visitor-files.ts). */
export const WEB_FILE_PREFIX = "webchat:file:";
/** `webchat:file-bytes:<visitor>:<file id>`: the bytes of that upload, read only when the message is answered. */
export const WEB_FILE_BYTES_PREFIX = "webchat:file-bytes:";
/** `webchat:consent:<visitor>`: the privacy policy a web chat visitor accepted, and when (adapters/web/privacy-consents.ts). */
export const WEB_CONSENT_PREFIX = "webchat:consent:";
/** The one process that writes {@link WEB_VISITOR_KEY} when none is kept yet (adapters/web/visitor-identity.ts). */
export const WEB_VISITOR_KEY_CLAIM = "webchat:visitor-key-writer";
/**
 * `webchat-limit:<kind>-<scope>:<visitor or address>`: the web chat's request counts per visitor and per client
 * address (adapters/web/visitor-limits.ts, written by rate-limiter-flexible), each expiring with its window. SQLite
 * and memory stores count in their process.
 */
export const REDIS_WEB_LIMIT_PREFIX = "webchat-limit:";
