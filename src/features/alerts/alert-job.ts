import { type Attached, type BridgeParts, sendFinal } from "../../bridge/bridge-parts.js";
import { ChannelError } from "../../bridge/channel.js";
import type { Job } from "../../bridge/job-ledger.js";
import { type PhraseLanguage, phraseLanguage } from "../../bridge/phrase-language.js";
import { cardLabels } from "../listings/card-actions.js";
import { sendCardsOnce } from "../listings/send-cards.js";
import type { AlertMetrics } from "./alert-metrics.js";
import { alertsDueAt } from "./alert-schedule.js";
import { alertTemplateOf } from "./alert-template.js";
import { alertTemplateParameters, alertText, MAX_ALERT_LINES } from "./alert-text.js";
import type { AlertPayload } from "./alert-work.js";
import type { PendingAlert, SavedSearches } from "./saved-searches.js";

/** Alerts one conversation keeps waiting at most, the oldest dropped first (a bulk import in the quiet hours). */
const MAX_PENDING = 100;

/** What the ledger keeps of the decision to send: the alerts going in this message, and when it was decided. */
interface AlertBatch {
  alerts: PendingAlert[];
  at: number;
}

/**
 * How the alerts of a batch go, decided once (in the ledger): as the alert message with its cards, as the channel's
 * approved template (outside a free-form window), or not at all (outside it without a template).
 */
type AlertRoute = "message" | "template" | "skipped";

/** What became of a batch, as the alerts metric counts it. */
type AlertOutcome = "sent" | "template" | "skipped" | "failed";

/**
 * Handles one alert event of a conversation, in the conversation's turn: the event joins the alerts waiting, and
 * if they may go now (an hour after the last alert message, outside the quiet hours in the chatbot's TimeZone) they
 * go as one message naming them all, followed by their listing cards; otherwise they wait for the background pass
 * to queue them when due. Every step is in the job's ledger, so a holder resuming it sends nothing twice. A
 * conversation without saved searches any more (the user stopped them) drops its alerts. Where the channel allows
 * free-form messages only for a while after the user's last message (WhatsApp's 24 hours) and that window is
 * closed, the batch goes as one approved template message when the channel has one, else it is skipped and
 * counted — never as a free-form message.
 */
export class AlertJob {
  constructor(
    private readonly parts: BridgeParts,
    private readonly searches: SavedSearches,
    private readonly job: Job,
    private readonly payload: AlertPayload,
    private readonly now: () => number,
    private readonly metrics: Pick<AlertMetrics, "alerts">,
  ) {}

  async run(): Promise<void> {
    const { parts, job, payload } = this;
    const attached = parts.attached(payload.channel, payload.botId);
    if (!attached) {
      parts.log.error({ channel: payload.channel, botId: payload.botId }, "alert for a channel that is not set up");
      return;
    }
    const { ledger } = job;
    if (!ledger.has("alert-batch")) await ledger.record("alert-batch", (await this.#decide()) ?? null);
    const batch = ledger.step<AlertBatch | null>("alert-batch");
    // Done by an earlier holder, whatever became of it (a failed send is not tried again either).
    if (!batch || ledger.has("alert-sent")) return;
    if (!ledger.has("alert-route")) await ledger.record("alert-route", await this.#route(attached));
    const route = ledger.step<AlertRoute>("alert-route");
    const outcome =
      route === "message"
        ? await this.#message(attached, batch)
        : route === "template"
          ? await this.#template(attached, batch)
          : "skipped";
    this.metrics.alerts.inc({ channel: payload.channel, outcome });
    await this.#sent(batch);
  }

  /** The message where free-form messages may go now; else the template where the channel has one; else nothing. */
  async #route({ channel }: Attached): Promise<AlertRoute> {
    const { conversation } = this.job;
    if (await this.parts.windows.open(conversation, channel, this.payload.target, this.now())) return "message";
    return alertTemplateOf(channel) ? "template" : "skipped";
  }

  /**
   * The alert message, then its cards. Refused because the free-form window closed after all (the clocks differ,
   * or it closed while the message waited): the template once instead, or nothing — never a loop.
   */
  async #message(attached: Attached, batch: AlertBatch): Promise<AlertOutcome> {
    const { parts, job, payload } = this;
    const { ledger, fence } = job;
    const language = await this.#language();
    if (!ledger.has("alert-text")) {
      try {
        const text = alertText(batch.alerts, language);
        await sendFinal(parts, attached, payload.target, { text, format: "plain" }, fence);
      } catch (error) {
        if (fence.aborted) throw error;
        if (error instanceof ChannelError && error.outsideWindow) {
          const route: AlertRoute = alertTemplateOf(attached.channel) ? "template" : "skipped";
          parts.log.info({ conversation: job.conversation, route }, "an alert was refused outside the window");
          await ledger.record("alert-route", route);
          return route === "template" ? this.#template(attached, batch) : "skipped";
        }
        // The user blocked the bot, the chat is gone…: dropped, or every later alert would bring these back.
        parts.log.warn({ err: error, conversation: job.conversation }, "an alert message could not be sent");
        return "failed";
      }
      await ledger.record("alert-text", true);
    }
    await sendCardsOnce(
      parts,
      attached,
      payload.target,
      job,
      "alert-cards",
      async () => batch.alerts.slice(0, MAX_ALERT_LINES).map((alert) => alert.card),
      cardLabels(language),
    );
    return "sent";
  }

  /** The language of the bot's own words here: its chatbot's AIResponseLanguage (English when unreadable). */
  async #language(): Promise<PhraseLanguage> {
    const settings = await this.parts
      .bot(this.payload.botId)
      ?.settings.read()
      .catch(() => undefined);
    return phraseLanguage(settings?.AIResponseLanguage);
  }

  /** The channel's approved template naming the batch (see {@link alertTemplateParameters}), sent once. */
  async #template({ channel, pacer }: Attached, batch: AlertBatch): Promise<AlertOutcome> {
    const { parts, job, payload } = this;
    const { ledger, fence } = job;
    if (ledger.has("alert-template")) return "template";
    const template = alertTemplateOf(channel);
    // Configured when the route was decided, gone since (another holder, a new configuration): nothing goes.
    if (!template) return "skipped";
    try {
      await pacer.schedule(
        payload.target,
        "final",
        () => {
          fence.throwIfAborted();
          // The variables fill a text approved in one language: theirs is the template's.
          return template.send(
            payload.target,
            alertTemplateParameters(batch.alerts, phraseLanguage(template.language)),
          );
        },
        undefined,
        { operation: "send" },
      );
    } catch (error) {
      if (fence.aborted) throw error;
      parts.log.warn({ err: error, conversation: job.conversation }, "an alert template could not be sent");
      return "failed";
    }
    parts.metrics.messagesOut.inc({ channel: channel.name });
    await ledger.record("alert-template", true);
    return "template";
  }

  /** Records the batch as done: the alerts no longer wait, and the hour until the next message starts now. */
  async #sent(batch: AlertBatch): Promise<void> {
    const { ledger, conversation } = this.job;
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
