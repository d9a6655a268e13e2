import { Counter, type Registry } from "prom-client";
import { registered } from "../../bridge/metrics.js";

/** The handoffs' metrics, in the bridge's registry. */
export interface HandoffMetrics {
  /** Requests for a person, by what became of them (sent, queued, failed, unavailable). */
  handoffs: Counter<"channel" | "outcome">;
  /**
   * What the bot told users about their handoff on its own, outside an answer: `notice` confirmation (the mail
   * went out late), undelivered (it was given up) or bot_back; `outcome` sent or failed (the platform refused).
   */
  handoffNotices: Counter<"channel" | "notice" | "outcome">;
}

/** The handoffs' metrics of `registry`, registered on first use. */
export function handoffMetrics(registry: Registry): HandoffMetrics {
  return {
    handoffs: registered(
      registry,
      "chatbridge_handoffs_total",
      (registers) =>
        new Counter({
          name: "chatbridge_handoffs_total",
          help: "Requests to talk to a person, by channel and outcome (sent, queued, failed, unavailable)",
          labelNames: ["channel", "outcome"],
          registers,
        }),
    ),
    handoffNotices: registered(
      registry,
      "chatbridge_handoff_notices_total",
      (registers) =>
        new Counter({
          name: "chatbridge_handoff_notices_total",
          help: "Messages telling users what became of their handoff outside an answer, by notice (confirmation, undelivered, bot_back) and outcome (sent, failed)",
          labelNames: ["channel", "notice", "outcome"],
          registers,
        }),
    ),
  };
}
