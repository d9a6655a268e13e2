import { defineChannelPlugin, startEach } from "../../src/channel-plugin.js";
import { whatsappConversationLink } from "./conversation-link.js";
import {
  WHATSAPP_VARIABLES,
  type WhatsAppEntry,
  type WhatsAppSettings,
  whatsappEntry,
  whatsappSettingsForBot,
} from "./settings.js";
import { startWhatsApp } from "./setup.js";

/** WhatsApp Cloud API: each number's signed webhook (`/webhooks/whatsapp[/<botId>]`), answers streamed in blocks. */
export const whatsappPlugin = defineChannelPlugin<typeof WHATSAPP_VARIABLES, WhatsAppSettings, WhatsAppEntry>({
  name: "whatsapp",
  variables: WHATSAPP_VARIABLES,
  settingsFromVariables: (values) => ({
    accessToken: values.WHATSAPP_ACCESS_TOKEN,
    phoneNumberId: values.WHATSAPP_PHONE_NUMBER_ID,
    appSecret: values.WHATSAPP_APP_SECRET,
    verifyToken: values.WHATSAPP_VERIFY_TOKEN,
    apiUrl: values.WHATSAPP_API_URL,
    apiVersion: values.WHATSAPP_API_VERSION,
    streaming: values.WHATSAPP_STREAMING,
    blockMinChars: values.WHATSAPP_BLOCK_MIN_CHARS,
    alertTemplate: values.WHATSAPP_ALERT_TEMPLATE,
    alertTemplateLanguage: values.WHATSAPP_ALERT_TEMPLATE_LANGUAGE,
  }),
  botEntry: whatsappEntry,
  settingsForBot: whatsappSettingsForBot,
  distinct: {
    of: (entry) => entry.phoneNumberId,
    problem: (id) => `WhatsApp phone number id ${id} is used twice; each number belongs to one entry.`,
  },
  conversationLink: (settings, start) => whatsappConversationLink(settings, start),
  start: ({ bots, bridge, http, log, metrics, onMalformed, receive }) =>
    startEach(bots, async ({ botId, settings }) => {
      const { status } = startWhatsApp({
        botId,
        whatsapp: settings,
        bridge,
        app: http,
        log,
        onMalformed,
        onStatus: (sent) => metrics.platformStatuses.inc({ channel: "whatsapp", status: sent }),
        onGraphError: (code) => metrics.platformErrors.inc({ channel: "whatsapp", code: String(code) }),
        receive,
      });
      // Webhooks only: nothing to stop (Meta retries what it could not deliver).
      return { status, stop: async () => {} };
    }),
});
