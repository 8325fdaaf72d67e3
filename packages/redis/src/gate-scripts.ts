import { LuaScript } from './script';

/*
 * The gate's state, all timed by the Redis server's clock (TIME), so processes whose clocks
 * disagree still share one window:
 *   hits  ZSET member -> when a submit (or a resend) was sent, for the sliding rate window
 *   slots ZSET member (a submit token, then its generation id) -> when the slot lapses
 *   pause STRING with a TTL: a 429 met by any process; no submit until it expires
 *   line  ZSET waiter id -> its place (from seq): the submits waiting, first come first served
 *   lapse ZSET waiter id -> when it leaves the line unless it asks again (a process that died)
 *   seq   counter for the line's places; held: what held the first in line at its last ask
 */

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * keepFor(key, ms): the key lives at least ms more, never less than it already would. A hit
 * scheduled ahead (a resend counted when it will go) keeps the key past one window; a later
 * acquire or hit must not cut that short, or the hit would vanish while still in the window.
 */
const KEEP_FOR = `local function keepFor(key, ms)
  local ttl = redis.call('PTTL', key)
  if ttl < ms then redis.call('PEXPIRE', key, ms) end
end`;

/**
 * KEYS: hits, slots, pause, line, lapse, seq, held. ARGV: per minute (-1 = none), max concurrent
 * (-1 = none), window ms, slot TTL ms, token, poll ms, waiter id ('' = none), lapse ms, then the
 * ids of this process's waiters that were aborted (they leave the line now).
 * Returns {1, 0} with the slot and hit taken, or {0, wait ms, position, what holds the line}
 * (1 retry_after, 2 per_minute, 3 max_concurrent, 0 unknown).
 * Both limits are checked and both counts taken in one step: a rate hit is never spent on a
 * submit that then finds no slot, and no two processes can take the last slot. Only the first
 * in line may take one: the others wait their turn, across every process on the account.
 */
export const ACQUIRE = new LuaScript(`${NOW}
${KEEP_FOR}
for i = 9, #ARGV do
  redis.call('ZREM', KEYS[4], ARGV[i])
  redis.call('ZREM', KEYS[5], ARGV[i])
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', '(' .. now)
for _, w in ipairs(gone) do redis.call('ZREM', KEYS[4], w) end
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. now)
local waiter = ARGV[7]
local lapseMs = tonumber(ARGV[8])
local position = 1
if waiter ~= '' then
  if not redis.call('ZSCORE', KEYS[4], waiter) then redis.call('ZADD', KEYS[4], redis.call('INCR', KEYS[6]), waiter) end
  position = redis.call('ZRANK', KEYS[4], waiter) + 1
elseif redis.call('ZCARD', KEYS[4]) > 0 then
  position = redis.call('ZCARD', KEYS[4]) + 1
end
local function wait(ms, why)
  if waiter ~= '' then
    redis.call('ZADD', KEYS[5], now + ms + lapseMs, waiter)
    keepFor(KEYS[4], ms + lapseMs)
    keepFor(KEYS[5], ms + lapseMs)
    keepFor(KEYS[6], ms + lapseMs)
  end
  if position == 1 then redis.call('SET', KEYS[7], why, 'PX', ms + lapseMs) end
  return {0, ms, position, why}
end
local poll = tonumber(ARGV[6])
if position > 1 then return wait(poll, tonumber(redis.call('GET', KEYS[7]) or '0')) end
local paused = redis.call('PTTL', KEYS[3])
if paused > 0 then return wait(paused, 1) end
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local perMinute = tonumber(ARGV[1])
local hits = redis.call('ZCARD', KEYS[1])
-- An empty window never holds a submit (a limit of 0 from the service would, with no hit to wait for).
if perMinute >= 0 and hits > 0 and hits >= perMinute then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return wait(math.max(1, tonumber(oldest[2]) + window - now), 2)
end
local maxConcurrent = tonumber(ARGV[2])
if maxConcurrent >= 0 and redis.call('ZCARD', KEYS[2]) >= maxConcurrent then return wait(poll, 3) end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[5])
keepFor(KEYS[1], window)
if waiter ~= '' then
  redis.call('ZREM', KEYS[4], waiter)
  redis.call('ZREM', KEYS[5], waiter)
end
return {1, 0}
`);

/** KEYS: slots. ARGV: token, generation id, TTL ms. The token's slot now belongs to the generation. */
export const BIND = new LuaScript(`${NOW}
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
end
return 1
`);

/** KEYS: slots. ARGV: token, hold ms. Keeps a slot (only if still held) for hold ms from now. */
export const HOLD = new LuaScript(`${NOW}
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
return 1
`);

/** KEYS: hits. ARGV: member, delay ms (a resend counted when it will go), window ms. */
export const HIT = new LuaScript(`${NOW}
${KEEP_FOR}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
keepFor(KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[2]))
return 1
`);

/** KEYS: pause. ARGV: ms from now. Extends the pause, never shortens it. */
export const PAUSE = new LuaScript(`
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end
return 1
`);

/** KEYS: slots. Slots not yet lapsed. */
export const IN_FLIGHT = new LuaScript(`${NOW}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`);
