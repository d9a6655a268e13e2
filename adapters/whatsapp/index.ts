import { defineChannelPlugin } from "../../src/plugin/channel-plugin.js";
import { lazyPart } from "../../src/plugin/plugin-api.js";
import { whatsappConversationLink } from "./conversation-link.js";
import {
  WHATSAPP_VARIABLES,
  type WhatsAppEntry,
  type WhatsAppSettings,
  whatsappEntry,
  whatsappOff,
  whatsappSettingsForBot,
} from "./settings.js";

/** The plugin's half that talks to the Cloud API (its channel, webhook routes and payload schemas): imported when a bot has WhatsApp on. */
const loadRuntime = lazyPart("whatsapp", () => import("./runtime.js"));

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
  off: ({ botId, settings }, receive) => whatsappOff(botId, settings, receive),
  start: async (context) => (await loadRuntime()).startWhatsAppChannel(context),
});
