import { type BridgeParts, sendFinal } from "../bridge-parts.js";
import type { Job } from "../job-ledger.js";
import { sendCardsOnce } from "../listings/send-cards.js";
import type { WorkPayload } from "../work-payload.js";
import { alertsDueAt } from "./alert-schedule.js";
import { alertText, MAX_ALERT_LINES } from "./alert-text.js";
import type { PendingAlert, SavedSearches } from "./saved-searches.js";

/** Alerts one conversation keeps waiting at most, the oldest dropped first (a bulk import in the quiet hours). */
const MAX_PENDING = 100;

/** What the ledger keeps of the decision to send: the alerts going in this message, and when it was decided. */
interface AlertBatch {
  alerts: PendingAlert[];
  at: number;
}

/** The payload of an alert work item. */
export type AlertPayload = Extract<WorkPayload, { kind: "alert" }>;

/**
 * Handles one alert event of a conversation, in the conversation's turn: the event joins the alerts waiting, and
 * if they may go now (an hour after the last alert message, outside the quiet hours in the chatbot's TimeZone) they
 * go as one message naming them all, followed by their listing cards; otherwise they wait for the background pass
 * to queue them when due. Every step is in the job's ledger, so a holder resuming it sends nothing twice. A
 * conversation without saved searches any more (the user stopped them) drops its alerts; where the channel may not
 * send what the user did not prompt (WhatsApp, outside its 24-hour window) they are skipped and counted.
 */
export class AlertJob {
  constructor(
    private readonly parts: BridgeParts,
    private readonly searches: SavedSearches,
    private readonly job: Job,
    private readonly payload: AlertPayload,
    private readonly now: () => number,
  ) {}

  async run(): Promise<void> {
    const { parts, job, payload } = this;
    const attached = parts.attached(payload.channel, payload.botId);
    if (!attached) {
      parts.log.error({ channel: payload.channel, botId: payload.botId }, "alert for a channel that is not set up");
      return;
    }
    const { ledger, fence } = job;
    if (!ledger.has("alert-batch")) await ledger.record("alert-batch", (await this.#decide()) ?? null);
    const batch = ledger.step<AlertBatch | null>("alert-batch");
    if (!batch) return;
    if (attached.channel.capabilities(payload.target).initiates === false) {
      // Never a free-form message where the platform allows only templates: skipped, counted, and done with.
      if (!ledger.has("alert-sent")) parts.metrics.alerts.inc({ channel: payload.channel, outcome: "skipped" });
      await this.#sent(batch);
      return;
    }
    if (!ledger.has("alert-text")) {
      try {
        await sendFinal(parts, attached, payload.target, { text: alertText(batch.alerts), format: "plain" }, fence);
      } catch (error) {
        if (fence.aborted) throw error;
        // The user blocked the bot, the chat is gone…: dropped, or every later alert would bring these back.
        parts.log.warn({ err: error, conversation: job.conversation }, "an alert message could not be sent");
        if (!ledger.has("alert-sent")) parts.metrics.alerts.inc({ channel: payload.channel, outcome: "failed" });
        await this.#sent(batch);
        return;
      }
      await ledger.record("alert-text", true);
    }
    await sendCardsOnce(parts, attached, payload.target, job, "alert-cards", async () =>
      batch.alerts.slice(0, MAX_ALERT_LINES).map((alert) => alert.card),
    );
    if (!ledger.has("alert-sent")) parts.metrics.alerts.inc({ channel: payload.channel, outcome: "sent" });
    await this.#sent(batch);
  }

  /** Records the batch as done: the alerts no longer wait, and the hour until the next message starts now. */
  async #sent(batch: AlertBatch): Promise<void> {
    const { ledger, conversation } = this.job;
    if (ledger.has("alert-sent")) return;
    const alerts = await this.searches.read(conversation);
    if (alerts) {
      await this.searches.write(conversation, {
        ...alerts,
        pending: undefined,
        dueAt: undefined,
        lastSentAt: batch.at,
      });
    }
    await ledger.record("alert-sent", true);
  }

  /** The alerts to send now; undefined when there are none or they must wait (then kept, with when they may go). */
  async #decide(): Promise<AlertBatch | undefined> {
    const { conversation } = this.job;
    const { action, botId } = this.payload;
    const alerts = await this.searches.read(conversation);
    if (!alerts || alerts.searches.length === 0) return undefined;
    const pending = [...(alerts.pending ?? [])];
    if (action.type === "event" && !pending.some((alert) => alert.id === action.alert.id)) pending.push(action.alert);
    pending.splice(0, pending.length - MAX_PENDING);
    if (pending.length === 0) return undefined;
    const now = this.now();
    const settings = await this.parts.bot(botId)?.settings.read();
    const timeZone = settings?.TimeZone || "UTC";
    const dueAt = alertsDueAt(now, alerts.lastSentAt, this.parts.config.alerts.quietHours, timeZone);
    if (dueAt <= now) return { alerts: pending, at: now };
    await this.searches.write(conversation, { ...alerts, pending, dueAt });
    return undefined;
  }
}
