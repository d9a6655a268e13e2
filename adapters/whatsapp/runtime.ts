import { type ChannelContext, type RunningChannel, startEach } from "../../src/plugin/channel-plugin.js";
import type { WhatsAppSettings } from "./settings.js";
import { startWhatsApp } from "./setup.js";

/** The WhatsApp plugin's half that talks to the Cloud API, imported on first use (src/common/lazy-parts.ts): its bots' start. */
export function startWhatsAppChannel({
  bots,
  bridge,
  routes,
  log,
  metrics,
  onMalformed,
  receive,
}: ChannelContext<WhatsAppSettings>): Promise<RunningChannel> {
  return startEach(bots, async ({ botId, settings }) => {
    const { status } = startWhatsApp({
      botId,
      whatsapp: settings,
      bridge,
      routes,
      log,
      onMalformed,
      onStatus: (sent) => metrics.platformStatuses.inc({ channel: "whatsapp", status: sent }),
      onGraphError: (code) => metrics.platformErrors.inc({ channel: "whatsapp", code: String(code) }),
      receive,
    });
    // Webhooks only: nothing to stop (Meta retries what it could not deliver).
    return { status, stop: async () => {} };
  });
}
