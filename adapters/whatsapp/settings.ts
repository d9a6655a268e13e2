import { z } from "zod";
import type { ChannelStatus } from "../../src/plugin/channel-plugin.js";
import { baseUrl, nonEmptyText, optionalText } from "../../src/plugin/plugin-api.js";

const phoneNumberId = z.string().trim().regex(/^\d+$/, "must be the numeric phone number id (not the phone number)");
/** Meta's template names: lowercase letters, digits and underscores, up to 512 characters. */
const templateName = z
  .string()
  .trim()
  .regex(/^[a-z0-9_]{1,512}$/, "must be a template name: lowercase letters, digits and underscores");
/** A template's language code as Meta names them: en, en_US, pt_BR, zh_CN… */
const templateLanguage = z
  .string()
  .trim()
  .regex(/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/, "must be a template language code such as en_US");

/** One number's WhatsApp settings: WHATSAPP_* for the bot `default`, completed by its `whatsapp` entry otherwise. */
export interface WhatsAppSettings {
  /** Undefined (or the phone number id) = WhatsApp is off for this bot. */
  accessToken: string | undefined;
  phoneNumberId: string | undefined;
  /** Signs the webhooks; not needed by a process that only answers. */
  appSecret: string | undefined;
  verifyToken: string | undefined;
  apiUrl: string;
  apiVersion: string;
  /** Block streaming (paragraphs as they finish) or whole answers. */
  streaming: "blocks" | "whole";
  blockMinChars: number;
  /**
   * The approved template an alert goes as outside the 24-hour customer-service window (its variables in
   * docs/channels.md); undefined: alerts are skipped there.
   */
  alertTemplate: string | undefined;
  /** The language of that template as approved (en_US by default). */
  alertTemplateLanguage: string;
}

/** The variables of the bot `default`; the API version and the streaming apply to every bot. */
export const WHATSAPP_VARIABLES = {
  WHATSAPP_ACCESS_TOKEN: optionalText("a system user's permanent access token with whatsapp_business_messaging", true),
  WHATSAPP_PHONE_NUMBER_ID: {
    schema: phoneNumberId.optional(),
    fix: "the phone number id from WhatsApp Manager → API Setup",
  },
  WHATSAPP_APP_SECRET: optionalText("the Meta app's App Secret (App settings → Basic), which signs the webhooks", true),
  WHATSAPP_VERIFY_TOKEN: optionalText(
    "any string you also enter as the webhook's Verify token in the app dashboard",
    true,
  ),
  WHATSAPP_API_URL: {
    schema: baseUrl.default("https://graph.facebook.com"),
    fix: "the Graph API root, https://graph.facebook.com by default (an emulator in tests)",
  },
  WHATSAPP_API_VERSION: {
    schema: z
      .string()
      .regex(/^v\d+\.\d+$/, "must look like v26.0")
      .default("v26.0"),
    fix: "a Graph API version such as v26.0 (the default)",
  },
  WHATSAPP_STREAMING: {
    schema: z.enum(["blocks", "whole"]).default("blocks"),
    fix: "blocks (each finished paragraph as its own message while the answer streams, the default) or whole (one message at the end)",
  },
  WHATSAPP_BLOCK_MIN_CHARS: {
    schema: z.coerce.number().int().min(1).max(4096).default(300),
    fix: "the fewest characters a streamed block message holds, from 1 to 4096 (default 300)",
  },
  WHATSAPP_ALERT_TEMPLATE: {
    schema: templateName.optional(),
    fix: "the name of an approved template with three body variables (see docs/channels.md), e.g. home_alert; unset: alerts outside the 24-hour window are skipped",
  },
  WHATSAPP_ALERT_TEMPLATE_LANGUAGE: {
    schema: templateLanguage.default("en_US"),
    fix: "the language code the alert template was approved in, such as en_US (the default) or pt_BR",
  },
};

/** A bot's `whatsapp` entry in BRIDGE_CONFIG: its number and Meta app (one Meta app per webhook path). */
export const whatsappEntry = z.strictObject({
  accessToken: nonEmptyText,
  phoneNumberId,
  appSecret: nonEmptyText,
  verifyToken: nonEmptyText,
  apiUrl: baseUrl.optional(),
  alertTemplate: templateName.optional(),
  alertTemplateLanguage: templateLanguage.optional(),
});
export type WhatsAppEntry = z.output<typeof whatsappEntry>;

/**
 * A named bot's settings: its number and app, the API version and streaming of the bot `default`. Its alert template
 * is its own entry's, never the default's: templates belong to a number's WhatsApp Business Account, which another
 * number may not share; the template's language falls back to WHATSAPP_ALERT_TEMPLATE_LANGUAGE.
 */
export function whatsappSettingsForBot(entry: WhatsAppEntry, defaults: WhatsAppSettings): WhatsAppSettings {
  return {
    ...defaults,
    ...entry,
    apiUrl: entry.apiUrl ?? defaults.apiUrl,
    alertTemplate: entry.alertTemplate,
    alertTemplateLanguage: entry.alertTemplateLanguage ?? defaults.alertTemplateLanguage,
  };
}

/**
 * The banner line of a number that misses a setting WhatsApp needs (it is off for that bot), or undefined when it has
 * them all: the access token and phone number id, and to receive (`receive`) the app secret and verify token.
 */
export function whatsappOff(botId: string, settings: WhatsAppSettings, receive: boolean): ChannelStatus | undefined {
  const needed: [string, string | undefined][] = [
    ["WHATSAPP_ACCESS_TOKEN", settings.accessToken],
    ["WHATSAPP_PHONE_NUMBER_ID", settings.phoneNumberId],
  ];
  if (receive)
    needed.push(["WHATSAPP_APP_SECRET", settings.appSecret], ["WHATSAPP_VERIFY_TOKEN", settings.verifyToken]);
  const missing = needed.flatMap(([name, value]) => (value ? [] : [name]));
  if (missing.length === 0) return undefined;
  const name = botId === "default" ? "WhatsApp" : `WhatsApp (${botId})`;
  return { name, enabled: false, detail: `set ${missing.join(", ")} to enable` };
}
