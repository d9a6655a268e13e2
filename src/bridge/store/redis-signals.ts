import { setTimeout as sleep } from "node:timers/promises";
import type { RedisClientType } from "@keyv/redis";
import { REDIS_SIGNALS_CHANNEL } from "./key-prefixes.js";
import { SignalListeners } from "./signal-listeners.js";
import type { SignalListener, SignalSubscription, Signals } from "./signals.js";

/** The pause before subscribing again when the connection dropped while Redis had not confirmed it yet. */
const RESUBSCRIBE_PAUSE_MS = 100;

/**
 * Signals over Redis pub/sub, heard by every instance on the same Redis and namespace: every topic travels on the
 * one channel `<namespace>:signals` as the JSON `[topic, message]` (signals are few, so each process hearing every
 * topic costs nothing worth a channel each). A process that listens holds one more connection (opened at its first
 * subscription, named `<namespace>-signals`, closed with the store), subscribed to that channel and routing the
 * signals to its listeners. Unlike the web chat's event stream, which ends when its connection drops and replays
 * what it missed, this connection reconnects by itself and Redis subscribes it again: a signal published while it
 * was down is lost, which is what a signal may be.
 */
export class RedisSignals implements Signals {
  readonly #client: RedisClientType;
  readonly #namespace: string;
  readonly #onError: (error: unknown) => void;
  readonly #listeners: SignalListeners;
  #subscriber: RedisClientType | undefined;
  /** Resolves once the subscriber connection is subscribed to the channel. */
  #live: Promise<void> | undefined;
  #closed = false;

  /** `onError` hears of the subscriber connection's failures (once per outage) and of listeners that throw. */
  constructor(client: RedisClientType, namespace: string, onError: (error: unknown) => void) {
    this.#client = client;
    this.#namespace = namespace;
    this.#onError = onError;
    this.#listeners = new SignalListeners(onError);
  }

  async publish(topic: string, message: string): Promise<void> {
    await this.#client.publish(this.#channel, JSON.stringify([topic, message]));
  }

  subscribe(topic: string, listener: SignalListener): SignalSubscription {
    if (this.#closed) throw new Error("the Redis store is closed");
    const unsubscribe = this.#listeners.add(topic, listener);
    this.#live ??= this.#listen();
    return { live: this.#live, unsubscribe };
  }

  /** Ends the subscriber connection and forgets every listener; the caller closes the main connection. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
    if (this.#subscriber?.isOpen) this.#subscriber.destroy();
  }

  #listen(): Promise<void> {
    const client = this.#client.duplicate({
      name: `${this.#namespace}-signals`,
      // SUBSCRIBE waits for the connection rather than failing while it is down. The main connection's reconnect
      // strategy (with backoff, once the store is open) applies, and node-redis subscribes again after a reconnect.
      disableOfflineQueue: false,
    }) as RedisClientType;
    this.#subscriber = client;
    let reported = false;
    client.on("error", (error: unknown) => {
      if (!reported) this.#onError(new Error("the pub/sub connection of signals to Redis failed", { cause: error }));
      reported = true;
    });
    client.on("ready", () => {
      reported = false;
    });
    const live = (async () => {
      // Resolves once connected, retrying meanwhile (also when the store closes during the wait: checked below).
      await client.connect();
      for (;;) {
        if (this.#closed) throw new Error("the Redis store is closed");
        try {
          await client.subscribe(this.#channel, (raw) => this.#route(raw));
          return;
        } catch (error) {
          // Redis had not confirmed it when the connection dropped: once more, queued until it is back.
          if (this.#closed) throw error;
          await sleep(RESUBSCRIBE_PAUSE_MS);
        }
      }
    })();
    // Awaited by whoever needs it; a store closed first must not leave an unhandled rejection behind.
    live.catch(() => {});
    return live;
  }

  #route(raw: string): void {
    let signal: unknown;
    try {
      signal = JSON.parse(raw);
    } catch {
      signal = undefined;
    }
    if (!Array.isArray(signal) || typeof signal[0] !== "string" || typeof signal[1] !== "string") {
      this.#onError(new Error(`a signal on ${this.#channel} that is not [topic, message]: ${raw.slice(0, 100)}`));
      return;
    }
    this.#listeners.deliver(signal[0], signal[1]);
  }

  get #channel(): string {
    return `${this.#namespace}:${REDIS_SIGNALS_CHANNEL}`;
  }
}
