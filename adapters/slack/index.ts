import { defineChannelPlugin, startEach } from "../../src/channel-plugin.js";
import { SLACK_VARIABLES, type SlackEntry, type SlackSettings, slackEntry, slackSettingsForBot } from "./settings.js";
import { startSlack } from "./setup.js";

/** A thread the bot answered in stays a conversation as long as its session would; "never expires" is a month. */
const NEVER_IDLE_THREAD_MS = 30 * 24 * 60 * 60 * 1000;

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
  start: ({ bots, bridge, http, store, log, onMalformed, receive, deployment }) =>
    startEach(bots, ({ botId, settings }) =>
      startSlack({
        botId,
        slack: settings,
        bridge,
        app: http,
        log,
        memory: store.keyv,
        threadMemoryMs: deployment.sessionIdleMs || NEVER_IDLE_THREAD_MS,
        onMalformed,
        receive,
      }),
    ),
});
