import type { Feature } from "../../bridge/feature.js";
import { phraseLanguage } from "../../bridge/phrase-language.js";
import { listings } from "../listings/index.js";
import { AlertDesk } from "./alert-desk.js";
import { AlertJob } from "./alert-job.js";
import { alertMetrics } from "./alert-metrics.js";
import { AlertPoller } from "./alert-poller.js";
import { alertStep } from "./alert-step.js";
import type { AlertPayload } from "./alert-work.js";
import { SavedSearches } from "./saved-searches.js";

/**
 * Saved searches with alerts: the `/alert` flow, `/alerts`, `/stop` and a sentence asking for one (step `alerts`);
 * the poll of each chatbot's listings and its change feed (a background pass, every ALERTS_POLL_MINUTES; none at 0)
 * queues each new or cheaper listing as work of kind `alert` in the conversations whose searches it matches, sent
 * with its cards in hourly batches outside the quiet hours.
 */
export const alerts: Feature<undefined> = {
  name: "alerts",
  open(context) {
    const { store, config, log, now } = context;
    const metrics = alertMetrics(context.metrics.registry);
    const searches = new SavedSearches(store.keyv, store.sets);
    const { cardsOf } = context.use(listings);
    const desk = new AlertDesk(searches, {
      cities: async (botId) => (context.bot(botId) ? cardsOf(botId).cities() : []),
      language: async (botId) => phraseLanguage((await context.bot(botId)?.settings.read())?.AIResponseLanguage),
    });
    const pollMs = config.alerts.pollMs;
    const poller =
      pollMs > 0
        ? new AlertPoller({
            chatbots: context.chatbots.map(({ botId, serialNumber, client }) => ({ botId, serialNumber, client })),
            keyv: store.keyv,
            searches,
            work: store.work,
            intervalMs: pollMs,
            dedupTtlMs: context.dedupTtlMs,
            log,
            now,
            metrics,
          })
        : undefined;
    return {
      api: undefined,
      steps: { alerts: alertStep(desk) },
      jobs: {
        alert: (job, payload, parts) => new AlertJob(parts, searches, job, payload as AlertPayload, now, metrics).run(),
      },
      passes: poller ? [poller] : [],
    };
  },
};
