import type { Logger } from "../common/log.js";
import type { BridgeConfig } from "../config/config.js";
import type { AnswerStops } from "./answer-stops.js";
import type { Channel, OutgoingText } from "./channel.js";
import type { ChatbotLink } from "./chatbot-link.js";
import type { ChatbotPictures } from "./chatbot-pictures.js";
import type { ChatbotSettingsReader } from "./chatbot-settings.js";
import type { FreeFormWindows } from "./free-form-windows.js";
import type { Greeter } from "./greeter.js";
import type { ReplyTarget } from "./inbound.js";
import type { MediaPipeline } from "./media/media-pipeline.js";
import type { BridgeMetrics } from "./metrics.js";
import type { Pacer } from "./reply/pacer.js";
import type { SessionDirectory } from "./sessions.js";

/** A channel attached to the bridge, with the pacer all its calls go through. */
export interface Attached {
  channel: Channel;
  pacer: Pacer;
}

/** One bot of this deployment with what answering for it needs. */
export interface BotState {
  link: ChatbotLink;
  settings: ChatbotSettingsReader;
  /** Its chatbot's avatar and launcher picture. */
  pictures: ChatbotPictures;
  sessions: SessionDirectory;
  greeter: Greeter;
}

/** What every job of a process shares (the bridge holds them). */
export interface BridgeParts {
  config: BridgeConfig;
  log: Logger;
  metrics: BridgeMetrics;
  media: MediaPipeline;
  /** When users last wrote, where a channel allows free-form messages only for a while after that (WhatsApp). */
  windows: FreeFormWindows;
  /** The channel `name` of bot `botId`, when attached. */
  attached(name: string, botId: string): Attached | undefined;
  bot(botId: string): BotState | undefined;
  /** Whether a person has the conversation, so the bot is paused in it (a feature says so). */
  paused(conversation: string): Promise<boolean>;
  /** The user's stop of the answer under way, by conversation (registered while an answer streams). */
  stoppers: AnswerStops;
}

/**
 * Sends a message that must arrive: paced as a final, so it waits for capacity rather than being dropped — unless
 * `fence` is down when its turn comes (this process may no longer write to the chat).
 */
export async function sendFinal(
  parts: Pick<BridgeParts, "metrics">,
  { channel, pacer }: Attached,
  target: ReplyTarget,
  text: OutgoingText,
  fence?: AbortSignal,
): Promise<void> {
  await pacer.schedule(
    target,
    "final",
    () => {
      fence?.throwIfAborted();
      return channel.send(target, text);
    },
    undefined,
    { operation: "send" },
  );
  parts.metrics.messagesOut.inc({ channel: channel.name });
}
