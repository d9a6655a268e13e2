/**
 * The alerts feature's keys in the bridge store (Keyv values, and its claims). Every user of the store keeps its keys in a file like this one; test/architecture/store-keys.test.ts
 * checks that no two of them collide (see src/bridge/store/key-prefixes.ts).
 */

/** `alerts:<conversation>`: a conversation's saved searches and its `/alert` flow under way (alerts/saved-searches.ts). */
export const ALERTS_PREFIX = "alerts:";
/** The set of the conversations with saved searches (alerts/saved-searches.ts); no conversation key is "with-searches". */
export const ALERTS_INDEX_KEY = "alerts:with-searches";
/** `alerts-snapshot:<bot>`: the listings of a bot's chatbot as the last alerts poll saw them (alerts/alert-poller.ts). */
export const ALERTS_SNAPSHOT_PREFIX = "alerts-snapshot:";
/** `alert:<conversation>:<bot>:<mls>:<event>`: a listing event queued once for a conversation (alerts/alert-poller.ts). */
export const ALERT_CLAIM_PREFIX = "alert:";
/** `alert-flush:<conversation>:<due time>`: the kept alerts of a conversation queued once when due (alert-poller.ts). */
export const ALERT_FLUSH_CLAIM_PREFIX = "alert-flush:";
