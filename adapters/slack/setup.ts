import { App, LogLevel, type Logger as SlackLogger } from "@slack/bolt";
import type Keyv from "keyv";
import type { ChannelStatus, RouteRegistrar } from "../../src/plugin/channel-plugin.js";
import type { Channel, InboundSink, Logger, ReportMalformed } from "../../src/plugin/plugin-api.js";
import { SlackHttpReceiver } from "./http-receiver.js";
import { CARD_ACTION, parseCardTap, parseQuickReply, parseSlackEvent, QUICK_REPLY_ACTION } from "./inbound.js";
import { SlackChannel } from "./outbound.js";
import type { CheckedBlockActions, CheckedMessageEvent, CheckedThreadStarted } from "./schema.js";
import { type SlackSettings, slackOff } from "./settings.js";
import { SlackSocketReceiver } from "./socket-receiver.js";
import { SlackThreads } from "./threads.js";

/** What Bolt's context tells about the bot and the workspace. */
interface SlackContext {
  botUserId?: string | undefined;
  botId?: string | undefined;
  teamId?: string | undefined;
}

/** The Events API path of the default bot; named bots use `${SLACK_EVENTS_PATH}/<botId>`. */
export const SLACK_EVENTS_PATH = "/webhooks/slack/events";

/** The interactivity path (button taps) of the default bot; named bots use `${SLACK_ACTIONS_PATH}/<botId>`. */
export const SLACK_ACTIONS_PATH = "/webhooks/slack/actions";

/** What {@link startSlack} needs. */
export interface SlackStartOptions {
  botId: string;
  slack: SlackSettings;
  bridge: InboundSink & { attach(channel: Channel): void };
  /** Where the Events API route is mounted. */
  routes: RouteRegistrar;
  /** The bridge's store, where the channel threads the bot takes part in are remembered. */
  memory: Keyv;
  /** How long a thread is remembered after its last message (the session idle time). */
  threadMemoryMs: number;
  log: Logger;
  /** Where authentic payloads that do not fit what the bridge reads are reported (HTTP and Socket Mode). */
  onMalformed?: ReportMalformed | undefined;
  /**
   * false: the outbound side only (role worker): no Bolt app, no routes, no Socket Mode connection — other processes
   * take the events; only SLACK_BOT_TOKEN is needed then. Default true.
   */
  receive?: boolean | undefined;
}

/** Slack running: its channel (undefined when disabled), its banner line, and how to stop receiving. */
export interface RunningSlack {
  channel: SlackChannel | undefined;
  status: ChannelStatus;
  /** Closes the Socket Mode connection (HTTP mode: nothing to close; Slack retries what it could not deliver). */
  stop(): Promise<void>;
}

/**
 * Starts one bot's Slack channel when it has a token and a way to receive. Over HTTP (a signing secret): a Bolt app
 * on a {@link SlackHttpReceiver} mounted at `POST /webhooks/slack/events` and `/webhooks/slack/actions` (or
 * `/<botId>`), which verifies each request's timestamp and signature, answers `url_verification`, acknowledges
 * payloads that do not fit what the bridge reads without dispatching them, and acknowledges events once the bridge
 * has taken the message, so a failure to take it answers 500 and Slack delivers it again. With an app-level token
 * (SLACK_APP_TOKEN) it uses Socket Mode instead, for workspaces without a public URL; payloads are sorted the same way,
 * and an envelope is acknowledged only once the bridge recorded its event. With `receive: false` only the channel is
 * attached, to answer.
 */
export async function startSlack(options: SlackStartOptions): Promise<RunningSlack> {
  const { botId, slack, bridge, routes, log } = options;
  const named = botId !== "default";
  const name = named ? `Slack (${botId})` : "Slack";
  const stopNothing = async () => {};
  const off = slackOff(botId, slack);
  if (off) return { channel: undefined, status: off, stop: stopNothing };
  // slackOff said the bot has its token.
  const botToken = slack.botToken as string;
  if (options.receive === false) {
    const channel = new SlackChannel({ token: botToken, apiUrl: slack.apiUrl, botId, log });
    bridge.attach(channel);
    const identity = await slackIdentity(channel, log, botId);
    const status = identity
      ? { name, enabled: true, detail: `${identity}, answering only (role worker)` }
      : { name, enabled: false, detail: AUTH_FAILED };
    return { channel, status, stop: stopNothing };
  }
  if (!(slack.signingSecret || slack.appToken)) {
    return {
      channel: undefined,
      status: {
        name,
        enabled: false,
        detail: "set SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode) to enable",
      },
      stop: stopNothing,
    };
  }
  const suffix = named ? `/${encodeURIComponent(botId)}` : "";
  const path = `${SLACK_EVENTS_PATH}${suffix}`;
  const actionsPath = `${SLACK_ACTIONS_PATH}${suffix}`;
  const logger = slackLogger(log.child({ channel: "slack", botId }));
  const http = slack.appToken
    ? undefined
    : new SlackHttpReceiver({
        signingSecret: slack.signingSecret as string,
        eventsPath: path,
        actionsPath,
        botId,
        logger,
        onMalformed: options.onMalformed,
      });
  const socket = slack.appToken
    ? new SlackSocketReceiver({
        appToken: slack.appToken,
        apiUrl: slack.apiUrl,
        botId,
        logger,
        onMalformed: options.onMalformed,
      })
    : undefined;
  const bolt = new App({
    token: botToken,
    receiver: http ?? socket,
    logger,
    clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 2 } },
  });
  const channel = new SlackChannel({ token: botToken, apiUrl: slack.apiUrl, botId, log });
  const threads = new SlackThreads(options.memory, botId, options.threadMemoryMs);
  // The receivers dispatch only payloads schema.ts checked: these are their types.
  const receive = async ({ event, context, body }: { event: unknown; context: SlackContext; body: unknown }) => {
    const message = event as CheckedMessageEvent | CheckedThreadStarted;
    const parsed = parseSlackEvent(message, {
      bot: { userId: context.botUserId ?? "", botId: context.botId },
      botId,
      teamId: context.teamId ?? (body as { team_id?: string }).team_id,
      joinedThread:
        message.type !== "assistant_thread_started" &&
        message.thread_ts !== undefined &&
        message.channel_type !== "im" &&
        (await threads.has(message.channel, message.thread_ts)),
    });
    if (parsed.kind === "ignored") {
      log.debug({ channel: "slack", botId, reason: parsed.reason }, "event ignored");
      return;
    }
    if ((await bridge.accept(parsed.message)) === "stopping") throw new Error("the bridge is stopping");
    const { target } = parsed.message;
    if (target.isGroup && target.threadId !== undefined) await threads.join(target.chatId, target.threadId);
  };
  bolt.event("message", receive);
  bolt.event("app_mention", receive);
  bolt.event("assistant_thread_started", receive);
  bridge.attach(channel);
  bolt.action({ action_id: QUICK_REPLY_ACTION }, async ({ ack, body, context }) => {
    await ack();
    const parsed = parseQuickReply(body as unknown as CheckedBlockActions, {
      bot: { userId: context.botUserId ?? "", botId: context.botId },
      botId,
      teamId: context.teamId,
    });
    if (parsed.kind === "message" && (await bridge.accept(parsed.message)) === "stopping") {
      throw new Error("the bridge is stopping");
    }
  });
  // Taps on listing cards: "Similar homes" asks its question; the Details link is only acknowledged.
  bolt.action({ action_id: CARD_ACTION }, async ({ ack, body, context }) => {
    await ack();
    const parsed = parseCardTap(body as unknown as CheckedBlockActions, {
      bot: { userId: context.botUserId ?? "", botId: context.botId },
      botId,
      teamId: context.teamId,
    });
    if (parsed.kind === "message" && (await bridge.accept(parsed.message)) === "stopping") {
      throw new Error("the bridge is stopping");
    }
  });
  if (http) routes.mount(http.router);
  const identity = await slackIdentity(channel, log, botId);
  if (!identity) return { channel, status: { name, enabled: false, detail: AUTH_FAILED }, stop: stopNothing };
  if (!socket) {
    const detail = `${identity}, events at ${path}, actions at ${actionsPath}`;
    return { channel, status: { name, enabled: true, detail }, stop: stopNothing };
  }
  try {
    await socket.start();
  } catch (error) {
    log.error({ channel: "slack", botId, reason: String(error) }, "Slack Socket Mode could not connect");
    const detail = "Socket Mode could not connect: check SLACK_APP_TOKEN (xapp-…, scope connections:write)";
    return { channel, status: { name, enabled: false, detail }, stop: stopNothing };
  }
  return {
    channel,
    status: { name, enabled: true, detail: `${identity}, Socket Mode` },
    stop: async () => {
      await socket.stop();
    },
  };
}

const AUTH_FAILED = "auth.test failed: check SLACK_BOT_TOKEN and SLACK_API_URL";

/** "@bot in Workspace" from auth.test, or undefined (logged) when the token does not work. */
function slackIdentity(channel: SlackChannel, log: Logger, botId: string): Promise<string | undefined> {
  return channel.client.auth.test().then(
    (result) => `@${result.user ?? "bot"} in ${result.team ?? "the workspace"}`,
    (error: unknown) => {
      log.warn({ err: error, channel: "slack", botId }, "Slack auth.test failed; check SLACK_BOT_TOKEN");
      return undefined;
    },
  );
}

/** Bolt's logger interface over pino, at warn and above (Bolt's info and debug chatter is for app developers). */
function slackLogger(log: Logger): SlackLogger {
  const text = (parts: unknown[]) => parts.map((part) => (typeof part === "string" ? part : String(part))).join(" ");
  return {
    debug: (...msg) => log.debug(text(msg)),
    info: (...msg) => log.debug(text(msg)),
    warn: (...msg) => log.warn(text(msg)),
    error: (...msg) => log.error(text(msg)),
    setLevel: () => {},
    getLevel: () => LogLevel.WARN,
    setName: () => {},
  };
}
