import type { FeaturePayload } from "../../bridge/work-payload.js";

/** A conversation's handoff event, handled in the conversation's order. */
export type HandoffAction =
  /** The handoff's time is up (`until` names which handoff). */
  | { type: "timeout"; until: number }
  /** Follow-ups written since `followUpKey` are due to be mailed. */
  | { type: "follow-ups"; followUpKey: string }
  /** A retry settled the handoff mail `mailId`. */
  | { type: "mail-settled"; mailId: string; outcome: "sent" | "failed"; confirmation: string }
  /** An operator gave the conversation back to the bot. */
  | { type: "resume" };

/** The work payload of a handoff event (kind `handoff`). */
export interface HandoffPayload extends FeaturePayload {
  kind: "handoff";
  action: HandoffAction;
}
