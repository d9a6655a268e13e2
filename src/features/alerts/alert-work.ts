import type { FeaturePayload } from "../../bridge/work-payload.js";
import type { PendingAlert } from "./saved-searches.js";

/** A conversation's alert event, handled in the conversation's order (after a /stop sent before it, say). */
export type AlertAction =
  /** A listing event matched one of its saved searches: sent now, or kept until it may go. */
  | { type: "event"; alert: PendingAlert }
  /** The alerts kept may go now. */
  | { type: "flush" };

/** The work payload of an alert event (kind `alert`). */
export interface AlertPayload extends FeaturePayload {
  kind: "alert";
  action: AlertAction;
}
