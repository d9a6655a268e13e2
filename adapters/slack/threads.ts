import type Keyv from "keyv";
import { SLACK_THREAD_PREFIX } from "./store-keys.js";

/**
 * The channel threads a bot takes part in: a thread it answered a mention in is a conversation, so the next
 * messages in it are answered without a new mention, as people expect of a bot they are talking to. Kept in the
 * bridge's store (so a restart or another instance knows them) for as long as a conversation lasts.
 */
export class SlackThreads {
  constructor(
    private readonly keyv: Keyv,
    private readonly botId: string,
    /** How long a thread is remembered after its last message. */
    private readonly ttlMs: number,
  ) {}

  /** Remembers that the bot answers in this thread (again), for another `ttlMs`. */
  async join(channel: string, threadTs: string): Promise<void> {
    await this.keyv.set(this.#key(channel, threadTs), true, this.ttlMs);
  }

  async has(channel: string, threadTs: string): Promise<boolean> {
    return (await this.keyv.get(this.#key(channel, threadTs))) === true;
  }

  #key(channel: string, threadTs: string): string {
    return `${SLACK_THREAD_PREFIX}${encodeURIComponent(this.botId)}:${channel}:${threadTs}`;
  }
}
