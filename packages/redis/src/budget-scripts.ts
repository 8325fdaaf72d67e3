import { LuaScript } from './script';

/*
 * A user's budget, all on the caller's clock (`now` in ms, an argument: periods and the minute
 * are the app's, and tests move them), each operation one script so it is atomic across processes:
 *   user    HASH  period (index of the current period), used (credits reserved or charged in it)
 *   hits    ZSET  key -> when its submit was counted (the sliding minute)
 *   flights ZSET  key -> when its slot lapses unless settled
 *   record  HASH  per key: owner's user and flights keys, period, credits, extra, state (r = reserved, s = settled)
 *   alias   STRING per generation id -> its key (written by bind, read by settle)
 */

/** The user's counts at `now` (old hits and lapsed slots dropped): used, in flight, hits, oldest hit (-1 none). */
const COUNTS = `local function counts(user, hits, flights, now, period)
  redis.call('ZREMRANGEBYSCORE', hits, '-inf', now - 60000)
  redis.call('ZREMRANGEBYSCORE', flights, '-inf', now)
  local used = 0
  if tonumber(redis.call('HGET', user, 'period') or '-1') == period then used = tonumber(redis.call('HGET', user, 'used') or '0') end
  local oldest = redis.call('ZRANGE', hits, 0, 0, 'WITHSCORES')
  return {used, redis.call('ZCARD', flights), redis.call('ZCARD', hits), tonumber(oldest[2] or '-1')}
end
local function keepFor(k, ms)
  if redis.call('PTTL', k) < ms then redis.call('PEXPIRE', k, ms) end
end`;

/**
 * KEYS: user, hits, flights, record. ARGV: key, credits, extra, credits cap, period ms, per
 * minute, in flight, now, slot TTL ms, key TTL ms. Caps are -1 for none. Returns {verdict, used,
 * in flight, hits, oldest hit}: verdict 1 reserved, 2 a replay (nothing counted), or a refusal:
 * -1 submits, -2 in flight, -3 credits. Checked and counted in one step.
 */
export const RESERVE = new LuaScript(`${COUNTS}
local now = tonumber(ARGV[8])
local periodMs = tonumber(ARGV[5])
local period = math.floor(now / periodMs)
local c = counts(KEYS[1], KEYS[2], KEYS[3], now, period)
if redis.call('EXISTS', KEYS[4]) == 1 then return {2, c[1], c[2], c[3], c[4]} end
local total = tonumber(ARGV[2]) + tonumber(ARGV[3])
local perMinute, inFlight, cap = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[4])
if perMinute >= 0 and c[3] >= perMinute then return {-1, c[1], c[2], c[3], c[4]} end
if inFlight >= 0 and c[2] >= inFlight then return {-2, c[1], c[2], c[3], c[4]} end
if cap >= 0 and c[1] + total > cap then return {-3, c[1], c[2], c[3], c[4]} end
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[9]), ARGV[1])
redis.call('HSET', KEYS[1], 'period', period, 'used', c[1] + total)
redis.call('HSET', KEYS[4], 'user', KEYS[1], 'flights', KEYS[3], 'period', period, 'credits', ARGV[2], 'extra', ARGV[3], 'state', 'r')
local keyTtl = tonumber(ARGV[10])
redis.call('PEXPIRE', KEYS[4], keyTtl)
keepFor(KEYS[2], 60000)
keepFor(KEYS[3], tonumber(ARGV[9]))
keepFor(KEYS[1], (period + 1) * periodMs - now + keyTtl)
local oldest = c[4]
if oldest < 0 then oldest = now end
return {1, c[1] + total, c[2] + 1, c[3] + 1, oldest}
`);

/** KEYS: user, hits, flights. ARGV: now, period ms. The counts, as RESERVE returns them. */
export const USAGE = new LuaScript(`${COUNTS}
local now = tonumber(ARGV[1])
local c = counts(KEYS[1], KEYS[2], KEYS[3], now, math.floor(now / tonumber(ARGV[2])))
return {0, c[1], c[2], c[3], c[4]}
`);

/** Gives back what a reservation counted (credits only within its own period). */
const GIVE_BACK = `local function giveBack(record, credits)
  local user = redis.call('HGET', record, 'user')
  if credits ~= 0 and tonumber(redis.call('HGET', user, 'period') or '-1') == tonumber(redis.call('HGET', record, 'period')) then
    redis.call('HINCRBY', user, 'used', -credits)
  end
end`;

/** KEYS: record. ARGV: key. A reserved reservation, neither bound nor settled, is undone and forgotten. */
export const RELEASE = new LuaScript(`${GIVE_BACK}
if redis.call('HGET', KEYS[1], 'state') ~= 'r' or redis.call('HEXISTS', KEYS[1], 'bound') == 1 then return 0 end
giveBack(KEYS[1], tonumber(redis.call('HGET', KEYS[1], 'credits')) + tonumber(redis.call('HGET', KEYS[1], 'extra')))
redis.call('ZREM', redis.call('HGET', KEYS[1], 'flights'), ARGV[1])
redis.call('DEL', KEYS[1])
return 1
`);

/** settleRecord(record, key, charged): a reserved record becomes its charge ('' keeps the reservation), its slot freed. */
const SETTLE_RECORD = `${GIVE_BACK}
local function settleRecord(record, key, charged)
  if redis.call('HGET', record, 'state') ~= 'r' then return 0 end
  redis.call('HSET', record, 'state', 's')
  if charged ~= '' then giveBack(record, tonumber(redis.call('HGET', record, 'credits')) - tonumber(charged)) end
  redis.call('ZREM', redis.call('HGET', record, 'flights'), key)
  return 1
end`;

/**
 * KEYS: alias, ended. ARGV: charged credits ('' = unknown: the reservation stands), record key
 * prefix, key TTL ms. Returns 1 the first time, 0 after. With no alias yet (the webhook outran
 * the 202's bind) the first end is kept under \`ended\` for the bind.
 */
export const SETTLE = new LuaScript(`${SETTLE_RECORD}
local key = redis.call('GET', KEYS[1])
if not key then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3], 'NX')
  return 0
end
return settleRecord(ARGV[2] .. key, key, ARGV[1])
`);

/** KEYS: record, alias, ended. ARGV: key, key TTL ms. Binds, and settles an end that came first. */
export const BIND = new LuaScript(`${SETTLE_RECORD}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[1], 'bound', 1)
local ended = redis.call('GET', KEYS[3])
if ended then
  redis.call('DEL', KEYS[3])
  settleRecord(KEYS[1], ARGV[1], ended)
end
return 1
`);
