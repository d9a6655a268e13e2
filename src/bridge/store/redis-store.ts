import KeyvRedis, { createClient, Keyv, type RedisClientConnectionType, type RedisClientType } from "@keyv/redis";
import { RedisBudgets } from "../reply/budgets/redis-budgets.js";
import type { BridgeStore } from "./bridge-store.js";
import { claimTtlMs } from "./claim-ttl.js";
import { REDIS_CLAIM_PREFIX } from "./key-prefixes.js";
import { redisConnectError } from "./redis-errors.js";
import { RedisLeases, RedisSets } from "./redis-leases.js";
import { RedisSignals } from "./redis-signals.js";
import { RedisVisitorEvents } from "./redis-visitor-events.js";
import { RedisWorkQueue } from "./redis-work-queue.js";
import { newHolderId } from "./takers.js";

/** Longest wait for the TCP (and TLS) connection, at startup and on each reconnect. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Upper bound of the pause between reconnect attempts after the connection drops. */
const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * The bridge's state in Redis, shared by every bridge process that uses the same URL and namespace. Values live
 * at `<namespace>::<key>` (@keyv/redis's layout) and claims at `<namespace>:claim:<key>`, so `keyv.clear()`
 * never drops the dedup records. Rejects with a StartupError naming STORE_URL when Redis cannot be reached or
 * refuses the credentials; it does not retry then, so a wrong URL stops the start within the connect timeout.
 */
export async function openRedisStore(url: string, description: string, namespace: string): Promise<BridgeStore> {
  let connected = false;
  const client: RedisClientType = createClient({
    url,
    // Shown by CLIENT LIST, so an operator can tell the bridge's connections apart.
    name: namespace,
    // While the connection is down, commands fail at once instead of queueing: the webhook gets an error and the
    // platform delivers the event again, rather than a request hanging until Redis returns.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // At startup a wrong host or password should stop the bridge with the reason, not retry forever; once it
      // has been connected, a dropped connection is retried with backoff.
      reconnectStrategy: (retries, cause) => (connected ? Math.min(100 * 2 ** retries, MAX_RECONNECT_DELAY_MS) : cause),
    },
  });
  // The adapter listens to the client's "error" events (without a listener they would end the process) and Keyv
  // passes them on as its own.
  const adapter = new ClosableKeyvRedis(client, { namespace, throwOnErrors: true });
  const keyv = new Keyv({ store: adapter, namespace, useKeyPrefix: false, throwOnErrors: true });
  // connectTimeout covers the TCP connection only: a server that accepts but never answers the handshake (not a
  // Redis, a stuck one) would keep the start waiting forever, so the whole connect has the same deadline.
  let deadline: NodeJS.Timeout | undefined;
  const silent = new Promise<never>((_resolve, reject) => {
    deadline = setTimeout(
      () => reject(Object.assign(new Error("no answer"), { code: "ETIMEDOUT" })),
      CONNECT_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([client.connect(), silent]);
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw redisConnectError(error, url, CONNECT_TIMEOUT_MS);
  } finally {
    clearTimeout(deadline);
  }
  connected = true;
  return new RedisBridgeStore(client, adapter, keyv, description, namespace);
}

/**
 * KeyvRedis opens the connection again for any operation after a close, which would leave a socket keeping the
 * process alive during shutdown; once the store is closed its operations must fail instead.
 */
class ClosableKeyvRedis extends KeyvRedis<string> {
  closed = false;

  override async getClient(): Promise<RedisClientConnectionType> {
    if (this.closed) throw new Error("the Redis store is closed");
    return super.getClient();
  }
}

class RedisBridgeStore implements BridgeStore {
  readonly #client: RedisClientType;
  readonly #adapter: ClosableKeyvRedis;
  readonly #namespace: string;
  readonly visitorEvents: RedisVisitorEvents;
  readonly kind = "redis";
  readonly work: RedisWorkQueue;
  readonly leases: RedisLeases;
  readonly sets: RedisSets;
  readonly budgets: RedisBudgets;
  readonly signals: RedisSignals;
  readonly redis: { readonly client: RedisClientType; readonly keyPrefix: string };

  constructor(
    client: RedisClientType,
    adapter: ClosableKeyvRedis,
    readonly keyv: Keyv,
    readonly description: string,
    namespace: string,
  ) {
    this.#client = client;
    this.#adapter = adapter;
    this.#namespace = namespace;
    this.redis = { client, keyPrefix: `${namespace}:` };
    this.visitorEvents = new RedisVisitorEvents(client, namespace);
    const holder = newHolderId();
    const reportError = (error: unknown) => keyv.emit("error", error);
    this.work = new RedisWorkQueue(client, namespace, (key) => this.#claimKey(key), holder, reportError);
    this.leases = new RedisLeases(client, namespace, holder, reportError);
    this.sets = new RedisSets(client, namespace);
    this.budgets = new RedisBudgets(client, namespace);
    this.signals = new RedisSignals(client, namespace, reportError);
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    // SET NX is atomic on the server, so exactly one caller wins across all processes; PX expires the claim.
    const reply = await this.#client.set(this.#claimKey(key), "1", {
      condition: "NX",
      expiration: { type: "PX", value: claimTtlMs(ttlMs) },
    });
    return reply !== null;
  }

  async release(key: string): Promise<void> {
    await this.#client.del(this.#claimKey(key));
  }

  async ping(): Promise<void> {
    await this.#client.ping();
  }

  async close(): Promise<void> {
    this.#adapter.closed = true;
    this.visitorEvents.close();
    this.signals.close();
    this.leases.close();
    await this.work.close();
    // close() lets commands already sent finish before the connection ends.
    if (this.#client.isOpen) await this.#client.close();
  }

  #claimKey(key: string): string {
    return `${this.#namespace}:${REDIS_CLAIM_PREFIX}${key}`;
  }
}
