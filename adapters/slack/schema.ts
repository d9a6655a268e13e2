import { z } from "zod";
import type { Refusal } from "../../src/plugin/plugin-api.js";

/*
 * The Slack payloads the bridge reads, and what Bolt reads of them before our listeners run (the workspace and
 * enterprise ids, the authorizations, the first action). These schemas strip unknown keys instead of passing them:
 * Bolt receives only checked fields, so a field it reads that we did not model (a `response_urls` of null) cannot
 * reach it. Ids and timestamps have the forms Slack documents: "C024BE91L", "1767224888.280449".
 */

/**
 * A Slack id (T… workspaces, E… organisations, U…/W… users, C…/D…/G… conversations, F… files): upper-case letters
 * and digits. Checked, not merely typed: Bolt keys its API client pools by workspace ids in a plain object, where
 * "__proto__" finds Object's own members and fails the event, and the bridge builds conversation keys from channel
 * and user ids, which a lone surrogate ("\ud800") cannot be encoded in.
 */
const slackId = z.string().regex(/^[A-Z0-9]+$/, "must be a Slack id");

/** A message timestamp, Slack's message id within a conversation: "1767224888.280449". */
const ts = z.string().regex(/^\d+(\.\d+)?$/, "must be a Slack timestamp");

/**
 * Message subtypes that carry something a person wrote; every other subtype (edits, deletions, joins, bot
 * messages, the root of an assistant thread…) is bookkeeping and ignored.
 */
export const CONTENT_SUBTYPES: ReadonlySet<string> = new Set(["file_share", "thread_broadcast", "me_message"]);

const file = z.object({
  id: slackId,
  name: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.int().nonnegative().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
});

/** A `message` or `app_mention` event with content (https://docs.slack.dev/reference/events/message). */
const messageEvent = z.object({
  type: z.enum(["message", "app_mention"]),
  subtype: z.string().optional(),
  user: slackId.optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts,
  thread_ts: ts.optional(),
  channel: slackId,
  channel_type: z.string().optional(),
  team: slackId.optional(),
  files: z.array(file).optional(),
});

/** https://docs.slack.dev/reference/events/assistant_thread_started */
const assistantThreadStarted = z.object({
  type: z.literal("assistant_thread_started"),
  event_ts: ts.optional(),
  assistant_thread: z.object({ user_id: slackId, channel_id: slackId, thread_ts: ts }),
});

const authorization = z.object({
  team_id: slackId.nullable().optional(),
  enterprise_id: slackId.nullable().optional(),
  user_id: slackId.optional(),
  is_bot: z.boolean().optional(),
  is_enterprise_install: z.boolean().optional(),
});

/** The Events API envelope (https://docs.slack.dev/apis/events-api/#callback-field); its event is checked by type. */
const eventCallback = z.object({
  type: z.literal("event_callback"),
  team_id: slackId.optional(),
  enterprise_id: slackId.nullable().optional(),
  api_app_id: z.string().optional(),
  event_id: z.string().optional(),
  event_time: z.number().optional(),
  is_enterprise_install: z.boolean().optional(),
  authorizations: z.array(authorization).optional(),
  event: z.looseObject({ type: z.string(), subtype: z.string().optional() }),
});

/** A tap on a button (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload). */
const blockActions = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: slackId, team_id: slackId.optional() }),
  team: z.object({ id: slackId, enterprise_id: slackId.optional() }).nullable().optional(),
  enterprise: z.object({ id: slackId }).nullable().optional(),
  is_enterprise_install: z.boolean().optional(),
  api_app_id: z.string().optional(),
  channel: z.object({ id: slackId }).optional(),
  message: z.object({ ts, thread_ts: ts.optional() }).optional(),
  response_url: z.string().optional(),
  trigger_id: z.string().optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        block_id: z.string().optional(),
        type: z.string().optional(),
        value: z.string().optional(),
        action_ts: ts,
      }),
    )
    .min(1),
});

export type CheckedMessageEvent = z.output<typeof messageEvent>;
export type CheckedThreadStarted = z.output<typeof assistantThreadStarted>;
export type CheckedBlockActions = z.output<typeof blockActions>;

/** Interactivity payload types Slack documents (https://docs.slack.dev/reference/interaction-payloads). */
const INTERACTIVE_TYPES: ReadonlySet<string> = new Set([
  "block_actions",
  "block_suggestion",
  "interactive_message",
  "message_action",
  "shortcut",
  "view_submission",
  "view_closed",
  "dialog_submission",
  "dialog_cancellation",
  "dialog_suggestion",
  "workflow_step_edit",
]);

/** What to do with a Slack payload. */
export type ScreenedSlackPayload =
  /** Hand to Bolt: a checked payload of a kind the bridge listens to. */
  | { kind: "dispatch"; body: Record<string, unknown> }
  /** Answer Slack's url_verification handshake. */
  | { kind: "challenge"; challenge: string }
  /** Slack's notice that it holds back this app's events (https://docs.slack.dev/apis/events-api/#rate-limiting). */
  | { kind: "rate_limited" }
  /** A documented kind the bridge does not read (reactions, edits, modals…): acknowledged unread. */
  | { kind: "ignored"; reason: string }
  | ({ kind: "malformed" } & Refusal);

const envelopeType = z.looseObject({ type: z.string() });

/**
 * Sorts an Events API payload (HTTP or Socket Mode). Envelope types other than event_callback, url_verification and
 * app_rate_limited are unknown types; a missing or non-string type, or an event_callback whose fields the bridge or
 * Bolt reads have other types, is a schema refusal. `message` and `app_mention` events with content, and
 * `assistant_thread_started`, are checked and dispatched; other event types and bookkeeping subtypes (edits,
 * joins, bot messages…) are ignored without being dispatched, whatever else they carry.
 */
export function screenEventsPayload(body: unknown): ScreenedSlackPayload {
  const typed = envelopeType.safeParse(body);
  if (!typed.success) return { kind: "malformed", reason: "schema", issues: typed.error.issues };
  switch (typed.data.type) {
    case "url_verification": {
      const challenge = z.looseObject({ challenge: z.string() }).safeParse(body);
      if (!challenge.success) return { kind: "malformed", reason: "schema", issues: challenge.error.issues };
      return { kind: "challenge", challenge: challenge.data.challenge };
    }
    case "app_rate_limited":
      return { kind: "rate_limited" };
    case "event_callback":
      return screenEventCallback(body);
    default:
      return { kind: "malformed", reason: "unknown_type", issues: [] };
  }
}

function screenEventCallback(body: unknown): ScreenedSlackPayload {
  const envelope = eventCallback.safeParse(body);
  if (!envelope.success) return { kind: "malformed", reason: "schema", issues: envelope.error.issues };
  const { type, subtype } = envelope.data.event;
  let event: z.ZodSafeParseResult<CheckedMessageEvent | CheckedThreadStarted>;
  if (type === "message" || type === "app_mention") {
    if (subtype !== undefined && !CONTENT_SUBTYPES.has(subtype))
      return { kind: "ignored", reason: `${subtype} message` };
    event = messageEvent.safeParse(envelope.data.event);
  } else if (type === "assistant_thread_started") {
    event = assistantThreadStarted.safeParse(envelope.data.event);
  } else return { kind: "ignored", reason: `${type} event` };
  if (!event.success) {
    const issues = event.error.issues.map((issue) => ({ ...issue, path: ["event", ...issue.path] }));
    return { kind: "malformed", reason: "schema", issues };
  }
  return { kind: "dispatch", body: { ...envelope.data, event: event.data } };
}

/**
 * Sorts an interactivity payload (HTTP or Socket Mode): `block_actions` is checked and dispatched (the quick-reply
 * buttons); the other documented types are ignored; anything else is an unknown type.
 */
export function screenInteractivePayload(body: unknown): ScreenedSlackPayload {
  const typed = envelopeType.safeParse(body);
  if (!typed.success) return { kind: "malformed", reason: "schema", issues: typed.error.issues };
  const { type } = typed.data;
  if (!INTERACTIVE_TYPES.has(type)) return { kind: "malformed", reason: "unknown_type", issues: [] };
  if (type !== "block_actions") return { kind: "ignored", reason: `${type} payload` };
  const actions = blockActions.safeParse(body);
  if (!actions.success) return { kind: "malformed", reason: "schema", issues: actions.error.issues };
  return { kind: "dispatch", body: actions.data };
}
