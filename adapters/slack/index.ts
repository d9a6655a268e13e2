import { defineChannelPlugin } from "../../src/plugin/channel-plugin.js";
import { lazyPart } from "../../src/plugin/plugin-api.js";
import {
  SLACK_VARIABLES,
  type SlackEntry,
  type SlackSettings,
  slackEntry,
  slackOff,
  slackSettingsForBot,
} from "./settings.js";

/** The plugin's half over Bolt and the Web API: imported when a bot has Slack on. */
const loadRuntime = lazyPart("slack", () => import("./runtime.js"));

/** Slack: each bot's app over the Events API (`/webhooks/slack/…[/<botId>]`) or Socket Mode, answers as native streams. */
export const slackPlugin = defineChannelPlugin<typeof SLACK_VARIABLES, SlackSettings, SlackEntry>({
  name: "slack",
  variables: SLACK_VARIABLES,
  settingsFromVariables: (values) => ({
    botToken: values.SLACK_BOT_TOKEN,
    signingSecret: values.SLACK_SIGNING_SECRET,
    appToken: values.SLACK_APP_TOKEN,
    apiUrl: values.SLACK_API_URL,
  }),
  botEntry: slackEntry,
  settingsForBot: slackSettingsForBot,
  distinct: {
    of: (entry) => entry.botToken,
    problem: () => "two bots share one Slack bot token; each Slack app belongs to one entry.",
  },
  off: ({ botId, settings }) => slackOff(botId, settings),
  start: async (context) => (await loadRuntime()).startSlackChannel(context),
});
