import type { RedisClientType } from "@keyv/redis";
import { REDIS_VISITOR_PREFIX } from "./key-prefixes.js";
import {
  checkRetention,
  type LoggedVisitorEvent,
  type VisitorEvent,
  type VisitorEventRetention,
  type VisitorEvents,
  type VisitorSubscription,
} from "./visitor-events.js";
import { VisitorListeners } from "./visitor-listeners.js";

/**
 * Appends one event atomically: the next id by the rule of `nextVisitorEventId`, from the last id and the server's
 * clock (so every instance agrees, whatever its own clock says), the message's latest state in the hash and its id in the sorted set (trimmed to
 * the newest ARGV[3] messages), every key's expiry pushed back, and the event published to the visitor's channel —
 * in id order, since scripts run one at a time. An entry is "<id> <event JSON>": the JSON passes through untouched
 * (Lua's cjson would turn an empty array into an object).
 * KEYS: last id, message → id (sorted set), message → entry (hash). ARGV: message ("" for transient), event JSON,
 * messages kept, idle milliseconds, channel.
 */
const APPEND = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local previous = tonumber(redis.call('GET', KEYS[1]) or '0')
local id = string.format('%.0f', math.max(previous + 1, now))
local entry = id .. ' ' .. ARGV[2]
redis.call('SET', KEYS[1], id, 'PX', ARGV[4])
if ARGV[1] ~= '' then
  redis.call('ZADD', KEYS[2], id, ARGV[1])
  redis.call('HSET', KEYS[3], ARGV[1], entry)
  local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
  if excess > 0 then
    local dropped = redis.call('ZRANGE', KEYS[2], 0, excess - 1)
    redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
    redis.call('HDEL', KEYS[3], unpack(dropped))
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('PUBLISH', ARGV[5], entry)
return id
`;

/** The entries of the messages whose latest event came after ARGV[1], by id. KEYS: the sorted set, the hash. */
const SINCE = `
local messages = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf')
if #messages == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(messages))
`;

interface Channel {
  /** Resolves once Redis confirmed the subscription. */
  ready: Promise<void>;
  router: (message: string) => void;
}

/**
 * The web chat's event log in Redis, shared by every instance on the same Redis and namespace. Per visitor, under
 * `<namespace>:visitor:<visitor>:`, `id` (the last id), `order` and `states` (the messages' latest events), all
 * expiring together after the idle time; new events are published on `…:events`. Each process holds one extra
 * connection for pub/sub (opened at the first subscription, named `<namespace>-visitor-events`), subscribed to the
 * channels of the visitors whose streams are open here and routing their events to the local subscribers. When that
 * connection drops, events may have been missed: every subscription is lost (subscribers catch up with `since`) and
 * the next subscription opens a new connection.
 */
export class RedisVisitorEvents implements VisitorEvents {
  readonly #client: RedisClientType;
  readonly #namespace: string;
  readonly #listeners = new VisitorListeners();
  readonly #channels = new Map<string, Channel>();
  #subscriber: { client: RedisClientType; connected: Promise<unknown> } | undefined;
  #closed = false;

  constructor(client: RedisClientType, namespace: string) {
    this.#client = client;
    this.#namespace = namespace;
  }

  async append(visitor: string, event: VisitorEvent, retention: VisitorEventRetention): Promise<number> {
    checkRetention(retention);
    const keys = this.#keys(visitor);
    const id = await this.#client.eval(APPEND, {
      keys: [keys.id, keys.order, keys.states],
      arguments: [
        event.message ?? "",
        JSON.stringify(event),
        String(retention.messages),
        String(Math.ceil(retention.idleMs)),
        keys.events,
      ],
    });
    return Number(id);
  }

  async since(visitor: string, afterId: number | undefined): Promise<LoggedVisitorEvent[]> {
    const keys = this.#keys(visitor);
    const entries = (await this.#client.eval(SINCE, {
      keys: [keys.order, keys.states],
      arguments: [String(afterId ?? 0)],
    })) as (string | null)[];
    return entries.flatMap((entry) => (entry === null ? [] : [parseEntry(entry)]));
  }

  async subscribe(visitor: string, listener: (event: LoggedVisitorEvent) => void): Promise<VisitorSubscription> {
    if (this.#closed) throw new Error("the Redis store is closed");
    const client = await this.#subscriberClient();
    let channel = this.#channels.get(visitor);
    if (!channel) {
      const router = (message: string) => this.#listeners.deliver(visitor, parseEntry(message));
      channel = { ready: client.subscribe(this.#keys(visitor).events, router), router };
      this.#channels.set(visitor, channel);
    }
    const current = channel;
    // Listening before the confirmation: whatever Redis routes once subscribed reaches this listener.
    const subscription = this.#listeners.add(visitor, listener, () => {
      if (this.#channels.get(visitor) !== current) return;
      this.#channels.delete(visitor);
      // A failure here means the connection dropped, which loses and resets everything anyway.
      client.unsubscribe(this.#keys(visitor).events, current.router).catch(() => {});
    });
    try {
      await current.ready;
    } catch (error) {
      subscription.close();
      throw error;
    }
    return subscription;
  }

  /** Ends every subscription and the pub/sub connection; the caller closes the main connection. */
  close(): void {
    this.#closed = true;
    const subscriber = this.#subscriber?.client;
    if (subscriber) this.#dropSubscriber(subscriber, new Error("the store closed"));
  }

  #subscriberClient(): Promise<RedisClientType> {
    if (!this.#subscriber) {
      const client = this.#client.duplicate({
        name: `${this.#namespace}-visitor-events`,
        // Not reconnected by itself: what was published meanwhile would be missed unnoticed, so a drop ends the
        // subscriptions and the next one opens a new connection.
        socket: { ...this.#client.options?.socket, reconnectStrategy: false },
      }) as RedisClientType;
      const lost = (error: unknown) =>
        this.#dropSubscriber(client, new Error("the pub/sub connection to Redis dropped", { cause: error }));
      client.on("error", lost);
      const connected = client.connect();
      connected.catch(lost);
      this.#subscriber = { client, connected };
    }
    const { client, connected } = this.#subscriber;
    return connected.then(() => client);
  }

  #dropSubscriber(client: RedisClientType, reason: Error): void {
    if (this.#subscriber?.client !== client) return;
    this.#subscriber = undefined;
    this.#channels.clear();
    this.#listeners.loseAll(reason);
    if (client.isOpen) client.destroy();
  }

  #keys(visitor: string) {
    const prefix = `${this.#namespace}:${REDIS_VISITOR_PREFIX}${visitor}`;
    return { id: `${prefix}:id`, order: `${prefix}:order`, states: `${prefix}:states`, events: `${prefix}:events` };
  }
}

function parseEntry(entry: string): LoggedVisitorEvent {
  const space = entry.indexOf(" ");
  const event = JSON.parse(entry.slice(space + 1)) as VisitorEvent;
  return { id: Number(entry.slice(0, space)), message: event.message, data: event.data };
}
