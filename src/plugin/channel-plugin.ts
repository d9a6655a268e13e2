import type { Router } from "express";
import type { z } from "zod";
import type { Channel } from "../bridge/channel.js";
import type { ChatbotView } from "../bridge/chatbot-link.js";
import type { InboundSink } from "../bridge/inbound.js";
import type { ReportMalformed } from "../bridge/malformed-payloads.js";
import type { BridgeMetrics } from "../bridge/metrics.js";
import type { BridgeStore } from "../bridge/store/bridge-store.js";
import type { Logger } from "../common/log.js";
import type { Variable } from "../config/config-variables.js";

/**
 * The contract of a channel: everything chatbridge knows of a messaging platform comes through one plugin, exported
 * by `adapters/<channel>/index.ts` and listed in `adapters/index.ts`. `loadConfig` reads the plugin's variables and
 * its entries in BRIDGE_CONFIG; `startBridge` starts it with every bot that has settings for it. Nothing else in the
 * application names a channel (modelled on Bolt's receivers, which the app starts and stops without knowing them,
 * and on the Chat SDK's adapters registered as data).
 */
export interface ChannelPlugin<Settings = unknown, Entry = unknown> {
  /**
   * Lower-case and stable: the key of a bot's settings for this channel in BRIDGE_CONFIG (`bots[].<name>`), and
   * the `channel` of the conversations it receives.
   */
  readonly name: string;
  /** The environment variables of the bot `default` on this channel, validated and reported like every other. */
  readonly variables: Readonly<Record<string, Variable<unknown>>>;
  /** The bot `default`'s settings from its variables, validated against {@link variables}. */
  settingsFromVariables(values: Readonly<Record<string, unknown>>): Settings;
  /** The zod schema of a bot's `<name>` entry in BRIDGE_CONFIG; undefined when only the bot `default` has this channel. */
  readonly botEntry: z.ZodType<Entry> | undefined;
  /** A named bot's settings: its entry, completed from the bot `default`'s where the entry leaves a setting out. */
  settingsForBot(entry: Entry, defaults: Settings): Settings;
  /** What two bots of BRIDGE_CONFIG cannot share (a token, a phone number), and the line that says so. */
  readonly distinct?: { of(entry: Entry): string; problem(value: string): string } | undefined;
  /** Settings that are valid but will likely not work as meant: one line each with the fix, for the start banner. */
  warnings?(bots: readonly ChannelBot<Settings>[], deployment: Pick<Deployment, "publicUrl">): string[];
  /**
   * The status line of a bot for which the channel is off (its token is not set), or undefined when it must be
   * started; `receive` as in {@link ChannelContext}. When the channel is off for every bot, `start` is not called:
   * the plugin's module can import its platform's libraries in `start` only (see src/common/lazy-parts.ts), and a process
   * without the channel never loads them.
   */
  off?(bot: ChannelBot<Settings>, receive: boolean): ChannelStatus | undefined;
  /**
   * Starts the channel for its bots: attaches each bot's outbound side to the bridge and, when `receive`, starts
   * receiving (routes on `http`, polling, sockets). Called once the server listens, before the bridge answers.
   * A bot that cannot start for a reason the operator can fix is a disabled status line, not a failure.
   * @throws ConfigError for settings that must stop the start (a webhook that would accept anyone's posts).
   */
  start(context: ChannelContext<Settings>): Promise<RunningChannel>;
  /**
   * A link that opens a conversation with this bot whose first message carries `start.code` (`chatbridge links`):
   * undefined when the channel has no such links or is off for the bot. `start.text` is a sentence ending with the
   * code, for a channel whose link can only prefill what the user sends.
   * @throws Error saying what could not be learned (the bot's username, the number) and what to check.
   */
  conversationLink?(
    settings: Settings,
    start: ConversationStart,
    deployment: Pick<Deployment, "publicUrl" | "localUrl">,
  ): Promise<string | undefined>;
}

/** What a conversation link starts with: the listing's code, and a sentence ending with it. */
export interface ConversationStart {
  code: string;
  text: string;
}

/** A channel plugin and the bots configured for it (see `Config.channels`). */
export interface ConfiguredChannel {
  plugin: ChannelPlugin;
  bots: ChannelBot<unknown>[];
}

/** One bot of the deployment on one channel. */
export interface ChannelBot<Settings> {
  /** `default` for the bot the environment variables describe, its id in BRIDGE_CONFIG otherwise. */
  botId: string;
  settings: Settings;
}

/** What every channel may need to know of the deployment it runs in. */
export interface Deployment {
  /** PUBLIC_URL: where the platforms reach this server, without trailing slash. */
  publicUrl: string | undefined;
  /** This server on the loopback interface, for the banner when there is no PUBLIC_URL. */
  localUrl: string;
  /** What the web chat page is titled: the embedded chatbot's name, or `chatbridge`. */
  title: string;
  /** A conversation idle this long starts a new session; 0 = never (SESSION_IDLE_MINUTES). */
  sessionIdleMs: number;
  /** Whether a request for a person can be mailed (SMTP configured), and HANDOFF_EMAIL when it is set. */
  handoff: { canMail: boolean; email: string | undefined };
  /** MEDIA_MAX_AUDIO_SECONDS: the longest recording the media pipeline forwards. */
  maxAudioSeconds: number;
}

/** What a plugin's `start` gets. */
export interface ChannelContext<Settings> {
  /** The bot `default` first, then each bot of BRIDGE_CONFIG with an entry for this channel. */
  bots: readonly ChannelBot<Settings>[];
  /**
   * Takes the inbound messages, and the channels whose outbound side answers them; tells which chatbot a bot talks
   * to, with its settings.
   */
  bridge: InboundSink & { attach(channel: Channel): void; chatbotOf(botId: string): ChatbotView | undefined };
  /** Where the channel's routes go: mounted on the server before the JSON 404 and error handler. */
  routes: RouteRegistrar;
  /** The bridge store's operations a channel may keep its own state with. */
  store: PluginStore;
  log: Logger;
  metrics: BridgeMetrics;
  /** Where authentic payloads the bridge cannot use are reported (counted and logged by shape). */
  onMalformed: ReportMalformed;
  /** false in a process of role `worker`: attach the outbound side only, receive nothing. */
  receive: boolean;
  deployment: Deployment;
}

/** Mounts a channel's routes (an express Router) on chatbridge's one HTTP server. */
export interface RouteRegistrar {
  mount(router: Router): void;
}

/**
 * What a channel may use of the bridge store: key/value state under its own keys (its store-keys.ts),
 * one-time claims, named leases (one poller of a token at a time), the web chat's visitor events, and on Redis the
 * client for a library that keeps its own state there (the web chat's rate limits). Not the work queue, budgets or
 * signals, which are the bridge's.
 */
export type PluginStore = Pick<BridgeStore, "keyv" | "claimOnce" | "leases" | "visitorEvents" | "redis">;

/** One line of the start banner: a channel of a bot enabled (and how it receives), or what is missing. */
export interface ChannelStatus {
  name: string;
  enabled: boolean;
  detail: string;
}

/** A started channel: a status line per bot, and how to stop receiving. */
export interface RunningChannel {
  status: ChannelStatus[];
  /** Stops receiving (polling, sockets); answers under way are the bridge's to finish. */
  stop(): Promise<void>;
}

/** A plugin as its folder writes it: the variables' values typed from their schemas. */
export type ChannelPluginDefinition<V extends Record<string, Variable<unknown>>, Settings, Entry> = Omit<
  ChannelPlugin<Settings, Entry>,
  "variables" | "settingsFromVariables"
> & {
  variables: V;
  settingsFromVariables(values: { [K in keyof V]: z.output<V[K]["schema"]> }): Settings;
};

/** Declares a channel plugin, typing `settingsFromVariables` from the plugin's own variable schemas. */
export function defineChannelPlugin<V extends Record<string, Variable<unknown>>, Settings, Entry>(
  definition: ChannelPluginDefinition<V, Settings, Entry>,
): ChannelPlugin<Settings, Entry> {
  return {
    ...definition,
    // loadConfig validated each value against these very schemas before calling this.
    settingsFromVariables: (values) =>
      definition.settingsFromVariables(values as Parameters<typeof definition.settingsFromVariables>[0]),
  };
}

/**
 * Starts one bot after the other (their start lines stay in the order of the configuration) and gathers them into
 * one running channel; when a bot's start throws, those already started are stopped before the error goes on.
 */
export async function startEach<Settings>(
  bots: readonly ChannelBot<Settings>[],
  startOne: (bot: ChannelBot<Settings>) => Promise<{ status: ChannelStatus; stop(): Promise<void> }>,
): Promise<RunningChannel> {
  const started: { status: ChannelStatus; stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    await Promise.all(started.map((bot) => bot.stop()));
  };
  try {
    for (const bot of bots) started.push(await startOne(bot));
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { status: started.map((bot) => bot.status), stop: stopAll };
}
