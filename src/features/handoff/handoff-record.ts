import type { ReplyTarget } from "../../bridge/inbound.js";
import type { TranscriptEntry } from "../../bridge/transcript.js";
import { HANDOFF_PREFIX } from "./handoff-keys.js";
import type { HandoffCase } from "./handoff-mail.js";

/** A conversation handed to a person: the bot stays silent in it until `until`, /bot, or an operator resumes it. */
export interface Handoff extends HandoffCase {
  botId: string;
  /** Where the bot tells the user it is back. */
  target: ReplyTarget;
  /** Epoch milliseconds after which the bot answers again. */
  until: number;
  mailTo: string;
  /** What the user wrote since the handoff and has not been mailed yet. */
  followUps: TranscriptEntry[];
  /** The event of the first unmailed follow-up: names its mail, so a retried sweep sends it once. */
  followUpKey?: string | undefined;
  /** The chatbot's AIResponseLanguage when the handoff began: the bot's own texts are in it. */
  language?: string | undefined;
  /**
   * The outbox id of the mail that asked for a person: a late confirmation, or the news that the mail was given
   * up, belongs to this handoff and no later one. Unset in handoffs stored by versions before it existed.
   */
  mailId?: string | undefined;
}

/** Where a handoff happens: the conversation, and where the user is told about it. */
export type HandoffPlace = Pick<Handoff, "conversation" | "channel" | "botId" | "target">;

/** The store key of a conversation's {@link Handoff}, one per conversation: a new handoff replaces the last. */
export function handoffKey(conversation: string): string {
  return `${HANDOFF_PREFIX}${conversation}`;
}
