import { type ChannelContext, type RunningChannel, startEach } from "../../src/plugin/channel-plugin.js";
import type { SlackSettings } from "./settings.js";
import { startSlack } from "./setup.js";

/** A thread the bot answered in stays a conversation as long as its session would; "never expires" is a month. */
const NEVER_IDLE_THREAD_MS = 30 * 24 * 60 * 60 * 1000;

/** The Slack plugin's half over Bolt and the Web API, imported on first use (src/common/lazy-parts.ts): starting its bots. */
export function startSlackChannel({
  bots,
  bridge,
  routes,
  store,
  log,
  onMalformed,
  receive,
  deployment,
}: ChannelContext<SlackSettings>): Promise<RunningChannel> {
  return startEach(bots, ({ botId, settings }) =>
    startSlack({
      botId,
      slack: settings,
      bridge,
      routes,
      log,
      memory: store.keyv,
      threadMemoryMs: deployment.sessionIdleMs || NEVER_IDLE_THREAD_MS,
      onMalformed,
      receive,
    }),
  );
}
