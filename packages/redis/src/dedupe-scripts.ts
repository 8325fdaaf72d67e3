import { LuaScript } from './script';

/**
 * KEYS: the event key, the data-set epoch, the recovery flag.
 * ARGV: lease ms, owner value, the epoch this instance last saw ('' if none), a new epoch, recovery ms.
 * An epoch that changed under an instance that saw one means Redis lost its data: every
 * instance then refuses claims until `recovery ms` after the new epoch began.
 */
export const CLAIM = new LuaScript(`
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  epoch = ARGV[4]
  redis.call('SET', KEYS[2], epoch)
  redis.call('SET', KEYS[2] .. ':fresh', '1', 'PX', ARGV[5])
end
if ARGV[3] ~= '' and ARGV[3] ~= epoch then
  local left = redis.call('PTTL', KEYS[2] .. ':fresh')
  if left > 0 then redis.call('SET', KEYS[3], '1', 'PX', left) end
end
if redis.call('EXISTS', KEYS[3]) == 1 then return {'recovering', epoch} end
if redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[1]) then return {'claimed', epoch} end
if redis.call('GET', KEYS[1]) == 'done' then return {'seen', epoch} end
return {'in_progress', epoch}
`);

/** KEYS: the event key. ARGV: the owner value. Deletes the claim only if it is still this owner's. */
export const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);
