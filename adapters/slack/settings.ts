import { z } from "zod";
import type { ChannelStatus } from "../../src/plugin/channel-plugin.js";
import { nonEmptyText, optionalText } from "../../src/plugin/plugin-api.js";

/** A Slack Bot User OAuth Token. */
const botToken = z
  .string()
  .trim()
  .regex(/^xoxb-[\w-]+$/, "must be a Bot User OAuth Token, xoxb-…");

/** An app-level token, which Socket Mode connects with. */
const appToken = z
  .string()
  .trim()
  .regex(/^xapp-[\w-]+$/, "must be an app-level token, xapp-…");

/** The Web API root ends in a slash: the Web API client appends method names to it. */
const apiUrl = z.url({ protocol: /^https?$/ }).transform((url) => (url.endsWith("/") ? url : `${url}/`));

/** One bot's Slack settings: SLACK_* for the bot `default`, its `slack` entry in BRIDGE_CONFIG otherwise. */
export interface SlackSettings {
  /** Undefined = Slack is off for this bot. */
  botToken: string | undefined;
  /** For HTTP (the Events API). */
  signingSecret: string | undefined;
  /** The app-level token (xapp-…): Socket Mode instead of HTTP. */
  appToken?: string | undefined;
  apiUrl: string;
}

/** The variables of the bot `default`. */
export const SLACK_VARIABLES = {
  SLACK_BOT_TOKEN: {
    schema: botToken.optional(),
    fix: "the app's Bot User OAuth Token (xoxb-…), or leave it unset to disable Slack",
    secret: true,
  },
  SLACK_SIGNING_SECRET: optionalText("the app's Signing Secret (Basic Information page)", true),
  SLACK_APP_TOKEN: {
    schema: appToken.optional(),
    fix: "an app-level token (xapp-…, scope connections:write) to use Socket Mode, or leave it unset for HTTP",
    secret: true,
  },
  SLACK_API_URL: {
    schema: apiUrl.default("https://slack.com/api/"),
    fix: "the Web API root, https://slack.com/api/ by default (an emulator in tests)",
  },
};

/** A bot's `slack` entry in BRIDGE_CONFIG: its own app; the API root is SLACK_API_URL unless it says otherwise. */
export const slackEntry = z
  .strictObject({
    botToken,
    signingSecret: nonEmptyText.optional(),
    appToken: appToken.optional(),
    apiUrl: apiUrl.optional(),
  })
  .refine((slack) => slack.signingSecret || slack.appToken, "needs signingSecret (HTTP) or appToken (Socket Mode)");
export type SlackEntry = z.output<typeof slackEntry>;

/** A named bot's settings: its own app's tokens, the API root it inherits. */
export function slackSettingsForBot(entry: SlackEntry, defaults: SlackSettings): SlackSettings {
  return {
    botToken: entry.botToken,
    signingSecret: entry.signingSecret,
    appToken: entry.appToken,
    apiUrl: entry.apiUrl ?? defaults.apiUrl,
  };
}

/** The banner line of a bot without a Slack bot token (Slack is off for it), or undefined when it has one. */
export function slackOff(botId: string, settings: SlackSettings): ChannelStatus | undefined {
  if (settings.botToken) return undefined;
  const name = botId === "default" ? "Slack" : `Slack (${botId})`;
  return { name, enabled: false, detail: "set SLACK_BOT_TOKEN to enable" };
}
