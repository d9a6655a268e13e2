import { createHash } from "node:crypto";

/** A Lua script with its SHA-1, for EVALSHA. */
export interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/**
 * What both scripts share: Redis's clock (one clock for every process), and the wait of one budget.
 * A budget `k` is KEYS[2k] (its state) and KEYS[2k+1] (its pause). A sliding window's state is a list of its
 * latest `max` call times, newest first; a token bucket's is its theoretical arrival time (GCRA): the bucket is
 * full from then on, and each call pushes it one interval later.
 */
const COMMON = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local EPS = ${1e-6}

local function wait_of(k, kind, x, y, need)
  local wait = 0
  if kind == 'w' then
    local at = redis.call('LINDEX', KEYS[2 * k], x - need)
    if at then wait = tonumber(at) + y - now end
  else
    local tat = tonumber(redis.call('GET', KEYS[2 * k]) or '0')
    wait = tat - now - (y - need) * 1000 / x
  end
  local held = redis.call('PTTL', KEYS[2 * k + 1])
  if held > wait then wait = held end
  return wait, held > 0
end

local function ms(wait)
  if wait <= EPS then return 0 end
  return math.max(1, math.ceil(wait - EPS))
end

-- Puts a call time into a window's list, which is kept newest first.
local function insert_call(key, at, value)
  local head = redis.call('LINDEX', key, 0)
  if not head or tonumber(head) <= at then
    redis.call('LPUSH', key, value)
    return
  end
  -- A call moved later (LATE) is the latest: insert before the first call not later than this one.
  for _, other in ipairs(redis.call('LRANGE', key, 0, -1)) do
    if tonumber(other) <= at then
      redis.call('LINSERT', key, 'BEFORE', other, value)
      return
    end
  end
  redis.call('RPUSH', key, value)
end

local function set_tat(key, tat)
  redis.call('SET', key, string.format('%.3f', tat), 'PX', math.max(1, math.ceil(tat - now)))
end
`;

/**
 * Spends requests in order, each all-or-nothing over its budgets (see {@link LocalBudgets} for the same rules).
 * KEYS[1] is the scope's "finals waiting" mark. ARGV: the mark's slack in ms, the number of requests, then per
 * request its priority ('f' or 'u') and number of charges, then per charge: budget index k, kind ('w' window:
 * x = max, y = windowMs; 'b' bucket: x = perSecond, y = burst), reserve, role ('c' chat, 'b' bot, 'o' operation).
 * Returns eight values per request tried: granted, lane wait, queue wait, short, paused, next final, next update
 * (integers) and the stamp of its place in the windows (the time pushed, as a string).
 */
export const SPEND = script(`${COMMON}
local function flag(value)
  if value then return 1 end
  return 0
end

local slack = tonumber(ARGV[1])
local stamp = string.format('%.3f', now)
local a = 3
local out = {}
for r = 1, tonumber(ARGV[2]) do
  local final = ARGV[a] == 'f'
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  local charges = {}
  for c = 1, n do
    charges[c] = { k = tonumber(ARGV[a]), kind = ARGV[a + 1], x = tonumber(ARGV[a + 2]), y = tonumber(ARGV[a + 3]),
      reserve = tonumber(ARGV[a + 4]), role = ARGV[a + 5] }
    a = a + 6
  end
  local lane, queue, bot, short, paused = 0, 0, 0, false, false
  for _, c in ipairs(charges) do
    local need = 1
    if not final then need = 1 + c.reserve end
    local wait, held = wait_of(c.k, c.kind, c.x, c.y, need)
    if wait > EPS then
      paused = paused or held
      if c.role == 'c' then
        lane = math.max(lane, wait)
      elseif c.role == 'o' and not final then
        short = true
      else
        queue = math.max(queue, wait)
        if c.role == 'b' then bot = math.max(bot, wait) end
      end
    end
  end
  if not final then
    local mark = redis.call('PTTL', KEYS[1])
    if mark > queue then queue = mark end
  end
  local granted = lane <= EPS and queue <= EPS and not short
  local next_final, next_update = 0, 0
  if granted then
    for _, c in ipairs(charges) do
      if c.kind == 'w' then
        insert_call(KEYS[2 * c.k], now, stamp)
        redis.call('LTRIM', KEYS[2 * c.k], 0, c.x - 1)
        -- A call moved later (LATE) may keep the list alive longer than this one does.
        if redis.call('PTTL', KEYS[2 * c.k]) < math.ceil(c.y) then
          redis.call('PEXPIRE', KEYS[2 * c.k], math.ceil(c.y))
        end
      else
        local tat = tonumber(redis.call('GET', KEYS[2 * c.k]) or '0')
        set_tat(KEYS[2 * c.k], math.max(tat, now) + 1000 / c.x)
      end
    end
    for _, c in ipairs(charges) do
      if c.role == 'c' then
        next_final = math.max(next_final, (wait_of(c.k, c.kind, c.x, c.y, 1)))
        next_update = math.max(next_update, (wait_of(c.k, c.kind, c.x, c.y, 1 + c.reserve)))
      end
    end
  elseif final and bot > EPS then
    local mark = math.ceil(bot + slack)
    if redis.call('PTTL', KEYS[1]) < mark then redis.call('SET', KEYS[1], '1', 'PX', mark) end
  end
  table.insert(out, flag(granted))
  table.insert(out, ms(lane))
  table.insert(out, ms(queue))
  table.insert(out, flag(short))
  table.insert(out, flag(paused))
  table.insert(out, ms(next_final))
  table.insert(out, ms(next_update))
  table.insert(out, stamp)
  if not granted and queue > EPS and not short then break end
end
return out
`);

/**
 * Pauses budgets for ARGV[1] ms: budget k is KEYS[2k] and KEYS[2k+1] (KEYS[1], the mark, is not touched), with
 * ARGV[3k-1], ARGV[3k], ARGV[3k+1] its kind, x and y as for {@link SPEND}. A bucket holds at most one call when
 * the pause ends.
 */
export const PAUSE = script(`${COMMON}
local pause = tonumber(ARGV[1])
for k = 1, (#KEYS - 1) / 2 do
  if redis.call('PTTL', KEYS[2 * k + 1]) < pause then
    redis.call('SET', KEYS[2 * k + 1], '1', 'PX', math.ceil(pause))
  end
  if ARGV[3 * k - 1] == 'b' then
    local x, y = tonumber(ARGV[3 * k]), tonumber(ARGV[3 * k + 1])
    local tat = tonumber(redis.call('GET', KEYS[2 * k]) or '0')
    set_tat(KEYS[2 * k], math.max(tat, now + pause + (y - 1) * 1000 / x))
  end
end
return 0
`);

/**
 * Moves a call's place in sliding windows later: KEYS are the windows' states, ARGV[1] the call's stamp, ARGV[2]
 * the shift in ms, then each window's length in ms. The call's time is replaced where it still is among the latest,
 * keeping the list newest first, and the list lives on until the moved time has left the window.
 */
export const LATE = script(`${COMMON}
local moved = tonumber(ARGV[1]) + tonumber(ARGV[2])
local value = string.format('%.3f', moved)
for k = 1, #KEYS do
  if redis.call('LREM', KEYS[k], 1, ARGV[1]) == 1 then
    insert_call(KEYS[k], moved, value)
    local life = math.ceil(moved + tonumber(ARGV[2 + k]) - now)
    if life > redis.call('PTTL', KEYS[k]) then redis.call('PEXPIRE', KEYS[k], life) end
  end
end
return 0
`);
