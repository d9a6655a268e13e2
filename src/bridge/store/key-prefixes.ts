/**
 * Every key prefix used in the bridge store, in one place, so that no two parts of the bridge can collide and an
 * operator can tell what a key in Redis or in `bridge.db` is. Everything lives under the store's namespace (default
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
/** `handoff:<conversation>`: the conversation's handoff to a person (handoff-record.ts). */
export const HANDOFF_PREFIX = "handoff:";
/** The list of conversations with a handoff (handoff-desk.ts); no conversation key is "active". */
export const HANDOFF_INDEX_KEY = "handoff:active";
/** `handoff-confirmed:<mail id>`: the user was told a late handoff mail went out (late-handoff-mail.ts). */
export const HANDOFF_CONFIRMED_PREFIX = "handoff-confirmed:";
/** `viewing:<conversation>`: the conversation's "Book a viewing" flow under way (viewings/viewing-desk.ts). */
export const VIEWING_PREFIX = "viewing:";
/** `unanswered:<conversation>`: the chatbot's answers without an answer in a row (handoff-desk.ts). */
export const UNANSWERED_PREFIX = "unanswered:";
/** `alerts:<conversation>`: a conversation's saved searches and its `/alert` flow under way (alerts/saved-searches.ts). */
export const ALERTS_PREFIX = "alerts:";
/** The set of the conversations with saved searches (alerts/saved-searches.ts); no conversation key is "with-searches". */
export const ALERTS_INDEX_KEY = "alerts:with-searches";
/** `alerts-snapshot:<bot>`: the listings of a bot's chatbot as the last alerts poll saw them (alerts/alert-poller.ts). */
export const ALERTS_SNAPSHOT_PREFIX = "alerts-snapshot:";
/**
 * `last-message:<conversation>`: when the user last wrote (epoch ms), kept only for channels with a free-form window
 * (WhatsApp's 24 hours) and expiring with it (free-form-windows.ts).
 */
export const LAST_MESSAGE_PREFIX = "last-message:";
/** `slack-thread:<bot>:<channel>:<thread ts>`: a Slack thread the bot takes part in (adapters/slack/threads.ts). */
export const SLACK_THREAD_PREFIX = "slack-thread:";
/** The mail outbox's waiting mails and their list, and its claims: src/mail/outbox-keys.ts. */
export { MAIL_OUTBOX_CLAIM_PREFIX, MAIL_OUTBOX_ENTRY_PREFIX, MAIL_OUTBOX_INDEX_KEY } from "../../mail/outbox-keys.js";
/** The key that signs web chat visitors' identities when WEB_CHAT_SECRET is unset (adapters/web/visitor-identity.ts). */
export const WEB_VISITOR_KEY = "webchat:visitor-key";
/** `webchat:file:<visitor>:<file id>`: what a web chat visitor uploaded, awaiting its message (adapters/web/visitor-files.ts). */
export const WEB_FILE_PREFIX = "webchat:file:";
/** `webchat:file-bytes:<visitor>:<file id>`: the bytes of that upload, read only when the message is answered. */
export const WEB_FILE_BYTES_PREFIX = "webchat:file-bytes:";
/** `webchat:consent:<visitor>`: the privacy policy a web chat visitor accepted, and when (adapters/web/privacy-consents.ts). */
export const WEB_CONSENT_PREFIX = "webchat:consent:";

// Claims.

/** `event:<channel>:<bot>:<event id>`: a platform event taken once (bridge.ts), also the id of its work item. */
export const EVENT_CLAIM_PREFIX = "event:";
/** `alert:<conversation>:<bot>:<mls>:<event>`: a listing event queued once for a conversation (alerts/alert-poller.ts). */
export const ALERT_CLAIM_PREFIX = "alert:";
/** `alert-flush:<conversation>:<due time>`: the kept alerts of a conversation queued once when due (alert-poller.ts). */
export const ALERT_FLUSH_CLAIM_PREFIX = "alert-flush:";
/** The one process that writes {@link WEB_VISITOR_KEY} when none is kept yet (adapters/web/visitor-identity.ts). */
export const WEB_VISITOR_KEY_CLAIM = "webchat:visitor-key-writer";

// Mail ids (inside the outbox's keys above).

/** `handoff:<channel>:<bot>:<event id>`: the mail asking a person to take over (handoff-desk.ts). */
export const HANDOFF_MAIL_PREFIX = "handoff:";
/** `viewing:<channel>:<bot>:<event id>`: the mail asking the agency for a viewing (viewings/viewing-desk.ts). */
export const VIEWING_MAIL_PREFIX = "viewing:";
/** `handoff-follow-up:<conversation>:<key>`: the mail with the user's messages after a handoff (handoff-desk.ts). */
export const HANDOFF_FOLLOW_UP_MAIL_PREFIX = "handoff-follow-up:";

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
 * `webchat-limit:<kind>-<scope>:<visitor or address>`: the web chat's request counts per visitor and per client
 * address (adapters/web/visitor-limits.ts, written by rate-limiter-flexible), each expiring with its window. SQLite
 * and memory stores count in their process.
 */
export const REDIS_WEB_LIMIT_PREFIX = "webchat-limit:";
/**
 * `signals`: the pub/sub channel of the store's signals, every topic on it (redis-signals.ts); nothing is stored. In
 * SQLite they are the rows of `bridge_signals`, kept a minute.
 */
export const REDIS_SIGNALS_CHANNEL = "signals";
