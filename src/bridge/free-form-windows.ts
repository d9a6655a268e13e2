import type Keyv from "keyv";
import type { Logger } from "../common/log.js";
import type { Channel } from "./channel.js";
import type { InboundMessage, ReplyTarget } from "./inbound.js";
import { LAST_MESSAGE_PREFIX } from "./store/key-prefixes.js";

/**
 * How long before the window's end the bridge stops counting on it: a send takes a moment, the pacer may hold it a
 * few seconds, and the platform's clock may be a little ahead of this host's.
 */
export const WINDOW_MARGIN_MS = 5 * 60 * 1000;

/**
 * When the user last wrote in each conversation of a channel with a free-form window
 * ({@link ChannelCapabilities.freeFormWindowMs}: WhatsApp's 24-hour customer-service window), in the bridge store
 * (`last-message:<conversation>`, expiring with the window), so that a message the user did not prompt (an alert)
 * knows whether it may go free-form. Channels without a window cost nothing.
 */
export class FreeFormWindows {
  constructor(
    private readonly keyv: Keyv,
    private readonly log: Logger,
  ) {}

  /**
   * Records the latest of `messages` (one batch of a conversation, in its turn): one write, by the platform's time
   * of sending where the adapter has it, else by the time of receipt. A store that cannot take it is logged, not
   * thrown: the answer matters more, and a window not recorded only means an alert goes as the template.
   */
  async record(conversation: string, channel: Channel, messages: readonly InboundMessage[]): Promise<void> {
    const [first] = messages;
    const windowMs = first && channel.capabilities(first.target).freeFormWindowMs;
    if (!windowMs) return;
    const at = Math.max(...messages.map((message) => (message.sentAt ?? message.receivedAt).getTime()));
    try {
      await this.keyv.set(`${LAST_MESSAGE_PREFIX}${conversation}`, at, windowMs);
    } catch (error) {
      this.log.warn({ err: error, conversation }, "the time of the user's last message could not be recorded");
    }
  }

  /**
   * Whether a free-form message may go to `target` at `now` (epoch ms): always where the channel has no window,
   * otherwise until {@link WINDOW_MARGIN_MS} before the window that the user's last message opened closes (closed
   * when the store cannot tell).
   */
  async open(conversation: string, channel: Channel, target: ReplyTarget, now: number): Promise<boolean> {
    const windowMs = channel.capabilities(target).freeFormWindowMs;
    if (!windowMs) return true;
    try {
      const last = await this.keyv.get<number>(`${LAST_MESSAGE_PREFIX}${conversation}`);
      return typeof last === "number" && now < last + windowMs - WINDOW_MARGIN_MS;
    } catch (error) {
      // Unsure is closed: a free-form message outside the window is what must never go.
      this.log.warn({ err: error, conversation }, "the time of the user's last message could not be read");
      return false;
    }
  }
}
