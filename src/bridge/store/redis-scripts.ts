import { createHash } from "node:crypto";
import type { RedisClientType } from "@keyv/redis";

/**
 * A Lua script run with EVALSHA, sent whole (EVAL) when Redis does not know it yet (after a restart or on a new
 * server). Redis runs a script as one atomic step: no other command sees its keys half-changed.
 */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash("sha1").update(source).digest("hex");
  }

  async run(client: RedisClientType, keys: string[], args: Array<string | number>): Promise<unknown> {
    const options = { keys, arguments: args.map(String) };
    try {
      return await client.evalSha(this.#sha, options);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return client.eval(this.#source, options);
    }
  }
}

// The work queue (redis-work-queue.ts). A conversation's lease key holds "<token> <entry id> <holder>": the entry
// id is the "work available" notice its holder keeps pending while it holds the conversation. Fenced scripts
// compare the whole value, so a lease that expired and was taken again (a new token) never matches.

/** The entry id a lease value names (`string.match` on "<token> <entry id> …"). */
const LEASE_ENTRY = "'^%d+ (%S+)'";

/** The server's clock in epoch milliseconds, so every instance stamps items with the same clock. */
const NOW = `
local time = redis.call('TIME')
local now = string.format('%.0f', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))`;

/**
 * Claims the item's id and records the item, or does nothing when the id is claimed or still waiting. The first
 * item of an empty inbox adds a "work available" notice and enters the waiting set; every item is published for
 * holders waiting for more. Returns the time recorded, or nil.
 * KEYS: claim, inbox, items, available (stream), waiting (sorted set), count.
 * ARGV: claim ms, id, payload JSON, conversation, recorded channel.
 */
export const ENQUEUE = new RedisScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return false end
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 1 then return false end
${NOW}
redis.call('HSET', KEYS[3], ARGV[2], now .. ' ' .. ARGV[3])
if redis.call('RPUSH', KEYS[2], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[5], now, ARGV[4])
  redis.call('XADD', KEYS[4], '*', 'conversation', ARGV[4])
end
redis.call('INCR', KEYS[6])
redis.call('PUBLISH', ARGV[5], ARGV[4])
return tonumber(now)
`);

/**
 * Tries to lease the conversation of notice ARGV[2]. While another lease lives, the notice is acknowledged and
 * deleted — unless it is that lease's own notice (reclaimed from a holder that is alive after all), which stays
 * for its holder to claim back. Without items the notice is spent. Otherwise: the next token, whether the
 * previous lease was released (the held marker), the lease with its expiry, the marker set. Returns
 * {token, resumed (0/1), lease value} or nil.
 * KEYS: available, lease, inbox, held marker, fence. ARGV: group, entry id, holder, lease ms.
 */
export const ACQUIRE = new RedisScript(`
local current = redis.call('GET', KEYS[2])
if current and string.match(current, ${LEASE_ENTRY}) == ARGV[2] then return false end
if current or redis.call('LLEN', KEYS[3]) == 0 then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[1], ARGV[2])
  return false
end
local token = redis.call('INCR', KEYS[5])
local resumed = redis.call('EXISTS', KEYS[4])
local value = token .. ' ' .. ARGV[2] .. ' ' .. ARGV[3]
redis.call('SET', KEYS[2], value, 'PX', ARGV[4])
redis.call('SET', KEYS[4], ARGV[3])
return {token, resumed, value}
`);

/**
 * Extends the lease if it is still ARGV[1], and claims its notice back to this consumer with its idle time reset,
 * so no other process reclaims it while the holder lives. Returns 1, or 0 when the lease is gone.
 * KEYS: lease, available. ARGV: lease value, lease ms, group, consumer, entry id.
 */
export const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('XCLAIM', KEYS[2], ARGV[3], ARGV[4], 0, ARGV[5], 'JUSTID')
return 1
`);

/**
 * Lets the conversation go if the lease is still ARGV[1]: deletes the lease and (unless ARGV[5] is 1) the held
 * marker, spends its notice, and adds a fresh one when items remain, in the same step, so the next taker anywhere
 * gets it at once and nothing waits between the holder's last read and the unlock. Returns 1, or 0.
 * KEYS: lease, available, inbox, held marker. ARGV: lease value, group, entry id, conversation, keep marker (0/1).
 */
export const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[5] ~= '1' then redis.call('DEL', KEYS[4]) end
redis.call('XACK', KEYS[2], ARGV[2], ARGV[3])
redis.call('XDEL', KEYS[2], ARGV[3])
if redis.call('LLEN', KEYS[3]) > 0 then redis.call('XADD', KEYS[2], '*', 'conversation', ARGV[4]) end
return 1
`);

/**
 * Puts back a notice this process read but has no taker for: spent and added again at the end of the stream, for
 * another consumer. A live lease's own notice stays pending (its holder claims it back).
 * KEYS: available, lease. ARGV: group, entry id, conversation.
 */
export const HAND_BACK = new RedisScript(`
local current = redis.call('GET', KEYS[2])
if current and string.match(current, ${LEASE_ENTRY}) == ARGV[2] then return 0 end
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('XDEL', KEYS[1], ARGV[2])
  redis.call('XADD', KEYS[1], '*', 'conversation', ARGV[3])
end
return 1
`);

/** Writes a ledger record if the lease is still ARGV[1]; 1, or 0. KEYS: lease, ledger. ARGV: value, job, record. */
export const WRITE_LEDGER = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
`);

/**
 * Removes items and ledger records if the lease is still ARGV[1], keeping the count and the conversation's place
 * in the waiting set (the time of its new oldest item, or out when none is left). Returns the number of items
 * removed, or -1 when the lease is gone.
 * KEYS: lease, inbox, items, ledger, waiting, count. ARGV: value, conversation, n, n item ids, job ids.
 */
export const COMPLETE = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local n = tonumber(ARGV[3])
local removed = 0
for i = 4, 3 + n do
  if redis.call('HDEL', KEYS[3], ARGV[i]) == 1 then
    redis.call('LREM', KEYS[2], 1, ARGV[i])
    removed = removed + 1
  end
end
for i = 4 + n, #ARGV do redis.call('HDEL', KEYS[4], ARGV[i]) end
if removed > 0 then
  redis.call('DECRBY', KEYS[6], removed)
  local head = redis.call('LINDEX', KEYS[2], 0)
  if head then
    redis.call('ZADD', KEYS[5], string.match(redis.call('HGET', KEYS[3], head), '^(%d+)'), ARGV[2])
  else
    redis.call('ZREM', KEYS[5], ARGV[2])
  end
end
return removed
`);

/** The first items of an inbox as id, stored item, id, stored item… KEYS: inbox, items. ARGV: last index. */
export const PENDING = new RedisScript(`
local result = {}
for _, id in ipairs(redis.call('LRANGE', KEYS[1], 0, ARGV[1])) do
  local stored = redis.call('HGET', KEYS[2], id)
  if stored then
    result[#result + 1] = id
    result[#result + 1] = stored
  end
end
return result
`);

/** {items, conversations, oldest time or nil}. KEYS: count, waiting. */
export const STATS = new RedisScript(`
local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('ZCARD', KEYS[2]), oldest[2] or false}
`);

/**
 * Deletes this process's consumer from the group when nothing is pending for it (at close: a consumer with
 * pending notices must stay, so they can be reclaimed). KEYS: available. ARGV: group, consumer.
 */
export const FORGET_CONSUMER = new RedisScript(`
if #redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2]) > 0 then return 0 end
return redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
`);

/**
 * Deletes the consumers of processes that ended without closing (killed), once nothing is pending for them and
 * they were idle for ARGV[2] ms. KEYS: available. ARGV: group, idle ms.
 */
export const PRUNE_CONSUMERS = new RedisScript(`
local removed = 0
for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local fields = {}
  for i = 1, #consumer, 2 do fields[consumer[i]] = consumer[i + 1] end
  if fields['pending'] == 0 and fields['idle'] > tonumber(ARGV[2]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], fields['name'])
    removed = removed + 1
  end
end
return removed
`);

// Named leases (redis-leases.ts): the lease key holds "<token> <holder>".

/** Takes the lease when nobody holds it: {token} or nil. KEYS: lease, token counter. ARGV: holder, ms. */
export const LEASE_ACQUIRE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. ' ' .. ARGV[1], 'PX', ARGV[2])
return token
`);

/** Extends the lease if it is still ARGV[1]: 1, or 0. KEYS: lease. ARGV: value, ms. */
export const LEASE_RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

/** Deletes the lease if it is still ARGV[1]. KEYS: lease. ARGV: value. */
export const LEASE_RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`);
