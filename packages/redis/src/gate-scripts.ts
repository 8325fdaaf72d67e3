import { LuaScript } from './script';

/*
 * The gate's state, all timed by the Redis server's clock (TIME), so processes whose clocks
 * disagree still share one window:
 *   hits  ZSET member -> when a submit (or a resend) was sent, for the sliding rate window
 *   slots ZSET member (a submit token, then its generation id) -> when the slot lapses
 *   pause STRING with a TTL: a 429 met by any process; no submit until it expires
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
 * KEYS: hits, slots, pause. ARGV: per minute (-1 = none), max concurrent (-1 = none), window
 * ms, slot TTL ms, token, poll ms. Returns {1, 0} with the slot and hit taken, or {0, wait ms}.
 * Both limits are checked and both counts taken in one step: a rate hit is never spent on a
 * submit that then finds no slot, and no two processes can take the last slot.
 */
export const ACQUIRE = new LuaScript(`${NOW}
${KEEP_FOR}
local paused = redis.call('PTTL', KEYS[3])
if paused > 0 then return {0, paused} end
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local perMinute = tonumber(ARGV[1])
if perMinute >= 0 and redis.call('ZCARD', KEYS[1]) >= perMinute then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(1, tonumber(oldest[2]) + window - now)}
end
local maxConcurrent = tonumber(ARGV[2])
if maxConcurrent >= 0 and redis.call('ZCARD', KEYS[2]) >= maxConcurrent then return {0, tonumber(ARGV[6])} end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[5])
keepFor(KEYS[1], window)
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
