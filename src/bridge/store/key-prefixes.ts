/**
 * The core's key prefixes in the bridge store, and the layout of the store itself. Every other user of the store keeps
 * its keys in a file of its own — each feature's `*-keys.ts` (src/features/), each channel's `store-keys.ts`
 * (adapters/), the mail outbox's `outbox-keys.ts` — so that the core names none of them; test/architecture/
 * store-keys.test.ts gathers them all and checks that no two collide, and an operator can tell what a key in Redis or
 * in `bridge.db` is from those files. Everything lives under the store's namespace (default
 * "chatbridge"): two deployments with different namespaces on one Redis or file never see each other's keys.
 *
 * Three key spaces do not overlap:
 * - Keyv values: Redis `<namespace>::<key>` (two colons, @keyv/redis's layout), SQLite `keyv_entries.key =
 *   <namespace>:<key>`;
 * - claims (`BridgeStore.claimOnce`, `WorkQueue.enqueue`): Redis `<namespace>:claim:<key>`, SQLite
 *   `bridge_claims.key = <namespace>:<key>`;
 * - the store's own structures for work, leases and sets: Redis `<namespace>:work:…`, `<namespace>:lease:…`,
 *   `<namespace>:set:…`; in SQLite their own tables (`bridge_work_items`, `bridge_work_conversations`,
 *   `bridge_work_ledger`, `bridge_fences`, `bridge_leases`, `bridge_sets`).
 */

// Keyv values.

/** `session:<conversation>`: the chatbot session id of a conversation (sessions.ts). */
export const SESSION_PREFIX = "session:";
/** `greeted:<conversation>`: the conversation got its first-contact greeting (greeter.ts). */
export const GREETED_PREFIX = "greeted:";
/** `transcript:<conversation>`: the last lines of a conversation, for handoff mails (transcript.ts). */
export const TRANSCRIPT_PREFIX = "transcript:";
/**
 * `last-message:<conversation>`: when the user last wrote (epoch ms), kept only for channels with a free-form window
 * (WhatsApp's 24 hours) and expiring with it (free-form-windows.ts).
 */
export const LAST_MESSAGE_PREFIX = "last-message:";

// Claims.

/** `event:<channel>:<bot>:<event id>`: a platform event taken once (bridge.ts), also the id of its work item. */
export const EVENT_CLAIM_PREFIX = "event:";

// The Redis layout of the store's own structures, after `<namespace>:`.

/** `claim:<key>`: a claim with its expiry (redis-store.ts). */
export const REDIS_CLAIM_PREFIX = "claim:";
/**
 * `work:…`: the work queue (redis-work-queue.ts): `work:available` (the stream of "work available" notices, group
 * `workers`), `work:recorded` (the pub/sub channel of new items), `work:waiting` (conversations by their oldest
 * item), `work:count`, `work:fence`, and per conversation `work:inbox:`, `work:items:`, `work:lease:`,
 * `work:held:`, `work:ledger:` followed by the conversation key.
 */
export const REDIS_WORK_PREFIX = "work:";
/** `lease:<name>`: the holder of a named lease, expiring unless renewed. */
export const REDIS_LEASE_PREFIX = "lease:";
/** `lease-token:<name>`: the fencing counter of a named lease. */
export const REDIS_LEASE_TOKEN_PREFIX = "lease-token:";
/** `set:<name>`: a member set. */
export const REDIS_SET_PREFIX = "set:";
/**
 * `budget:<channel>:<bot>:…`: the platform budgets the pacers share (redis-budgets.ts): `bot`, `chat:<chat id>`,
 * `op:<operation>` (a window's call times or a bucket's arrival time), `pause:` followed by one of those (a
 * rate-limit pause), and `finals-waiting`; each expires once it no longer limits anything. Memory and SQLite stores
 * keep budgets in their process (local-budgets.ts).
 */
export const REDIS_BUDGET_PREFIX = "budget:";
/**
 * `visitor:<visitor>:…`: the web chat's event log (redis-visitor-events.ts): `:id` (the last event id), `:order` and
 * `:states` (the kept messages' latest events), expiring together, and `:events` (the pub/sub channel of new events).
 * In SQLite its tables are `bridge_visitors` and `bridge_visitor_events`.
 */
export const REDIS_VISITOR_PREFIX = "visitor:";
/**
 * `signals`: the pub/sub channel of the store's signals, every topic on it (redis-signals.ts); nothing is stored. In
 * SQLite they are the rows of `bridge_signals`, kept a minute.
 */
export const REDIS_SIGNALS_CHANNEL = "signals";
