import type { ChannelStatus, RouteRegistrar } from "../../src/plugin/channel-plugin.js";
import type { Channel, InboundSink, Logger, ReportMalformed } from "../../src/plugin/plugin-api.js";
import { WhatsAppChannel } from "./outbound.js";
import { WHATSAPP_WEBHOOK_PATH, whatsappWebhookRoutes } from "./routes.js";
import { type WhatsAppSettings, whatsappOff } from "./settings.js";

/** What {@link startWhatsApp} needs. */
export interface WhatsAppStartOptions {
  /** The bot of this deployment (`default` for the one the environment describes). */
  botId?: string | undefined;
  whatsapp: WhatsAppSettings;
  bridge: InboundSink & { attach(channel: Channel): void };
  /** Where the webhook routes are mounted. */
  routes: RouteRegistrar;
  log: Logger;
  /** Called for each status update of a sent message (sent, delivered, read, failed), for the metrics. */
  onStatus?: (status: string) => void;
  /** Called with the code of each Graph error, for the metrics. */
  onGraphError?: (code: number) => void;
  /** Where authentic deliveries that the bridge cannot use (not JSON, not fitting the schema) are reported. */
  onMalformed?: ReportMalformed | undefined;
  /**
   * false: the outbound side only (role worker): no webhook routes — other processes take the deliveries; the app
   * secret and the verify token are not needed then. Default true.
   */
  receive?: boolean | undefined;
}

/**
 * Starts one number's WhatsApp when all four settings are there: attaches its channel to the bridge and serves its
 * webhook at `/webhooks/whatsapp` (or `/<botId>`; see {@link whatsappWebhookRoutes}). With `receive: false` only
 * the channel is attached (the access token and phone number id suffice), to answer.
 */
export function startWhatsApp(options: WhatsAppStartOptions): {
  channel: WhatsAppChannel | undefined;
  status: ChannelStatus;
} {
  const { whatsapp, bridge, routes, log } = options;
  const botId = options.botId ?? "default";
  const named = botId !== "default";
  const name = named ? `WhatsApp (${botId})` : "WhatsApp";
  const path = `${WHATSAPP_WEBHOOK_PATH}${named ? `/${encodeURIComponent(botId)}` : ""}`;
  const receive = options.receive ?? true;
  const off = whatsappOff(botId, whatsapp, receive);
  if (off) return { channel: undefined, status: off };
  // whatsappOff said every setting it needs is there.
  const phoneNumberId = whatsapp.phoneNumberId as string;
  const channel = new WhatsAppChannel({
    accessToken: whatsapp.accessToken as string,
    phoneNumberId,
    apiUrl: whatsapp.apiUrl,
    apiVersion: whatsapp.apiVersion,
    // Block streaming by default: WhatsApp cannot edit, so the alternative is silence until the whole answer is
    // ready; the minimum keeps one notification per real paragraph rather than per line.
    blocks: whatsapp.streaming === "blocks" ? { minLength: whatsapp.blockMinChars } : undefined,
    alertTemplate: whatsapp.alertTemplate
      ? { name: whatsapp.alertTemplate, language: whatsapp.alertTemplateLanguage }
      : undefined,
    botId,
    log,
    onGraphError: options.onGraphError,
  });
  bridge.attach(channel);
  // The operator sees whether alerts can reach users who last wrote over 24 hours ago.
  const template = whatsapp.alertTemplate
    ? `, alert template ${whatsapp.alertTemplate} (${whatsapp.alertTemplateLanguage})`
    : "";
  if (!receive) {
    return {
      channel,
      status: {
        name,
        enabled: true,
        detail: `phone number id ${phoneNumberId}, answering only (role worker)${template}`,
      },
    };
  }
  routes.mount(
    whatsappWebhookRoutes({
      path,
      appSecret: whatsapp.appSecret as string,
      verifyToken: whatsapp.verifyToken as string,
      botId,
      phoneNumberId,
      bridge,
      channel,
      log,
      onStatus: options.onStatus,
      onMalformed: options.onMalformed,
    }),
  );
  return {
    channel,
    status: {
      name,
      enabled: true,
      detail: `phone number id ${phoneNumberId}, webhook ${path}${template}`,
    },
  };
}
