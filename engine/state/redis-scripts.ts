/**
 * The Lua scripts of the redis flow store. Each runs atomically on the server, so a write, its TTL
 * and the flow's bookkeeping never interleave with another client's.
 *
 * Layout per flow: value keys `<prefix><flow>:k:<key>`, an index set `<prefix><flow>:keys` holding
 * the flow's value keys, and one sorted set `<prefix>flows` scoring each flow by the expiry of its
 * longest-lived key (what `activeFlows` counts). Value keys carry their own PEXPIRE; the index and the
 * flows entry are kept alive at least as long as any key of the flow.
 */

const COMMON = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function track(value_key, index, flows, member, ms)
  redis.call('SADD', index, value_key)
  if redis.call('PTTL', index) < ms then redis.call('PEXPIRE', index, ms) end
  local at = now_ms() + ms
  local current = redis.call('ZSCORE', flows, member)
  if not current or tonumber(current) < at then redis.call('ZADD', flows, at, member) end
end
local function forget_if_empty(index, flows, member)
  if redis.call('SCARD', index) == 0 then
    redis.call('DEL', index)
    redis.call('ZREM', flows, member)
  end
end
`;

/** A script and how many of its arguments are keys (ioredis defineCommand). */
export interface LuaCommand {
  numberOfKeys: number;
  lua: string;
}

/** KEYS: value, index, flows. ARGV: member, ttl ms, JSON value. */
const set: LuaCommand = {
  numberOfKeys: 3,
  lua: `${COMMON}
local ms = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[3], 'PX', ms)
track(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ms)
return 1`,
};

/** KEYS: value, index, flows. ARGV: member, ttl ms, by. Returns the new number as text (no integer truncation). */
const incrBy: LuaCommand = {
  numberOfKeys: 3,
  lua: `${COMMON}
local ms = tonumber(ARGV[2])
local current = redis.call('GET', KEYS[1])
local n = 0
if current then
  n = tonumber(current)
  if not n then return redis.error_reply('NOTNUMBER the value is not a number') end
end
local text = string.format('%.17g', n + tonumber(ARGV[3]))
redis.call('SET', KEYS[1], text, 'PX', ms)
track(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ms)
return text`,
};

/**
 * KEYS: value, index, flows. ARGV: member, ttl ms, expected JSON, next JSON. Compares decoded JSON
 * (key order does not matter); an absent key equals an expected null. Returns {1} or {0, current JSON}.
 */
const cas: LuaCommand = {
  numberOfKeys: 3,
  lua: `${COMMON}
local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= 'table' then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
local current = redis.call('GET', KEYS[1])
local equal
if current then equal = same(cjson.decode(current), cjson.decode(ARGV[3])) else equal = ARGV[3] == 'null' end
if not equal then return {0, current or 'null'} end
local ms = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[4], 'PX', ms)
track(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ms)
return {1}`,
};

/** KEYS: value, index, flows. ARGV: member. Returns how many keys were deleted (0 or 1). */
const del: LuaCommand = {
  numberOfKeys: 3,
  lua: `${COMMON}
local n = redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], KEYS[1])
forget_if_empty(KEYS[2], KEYS[3], ARGV[1])
return n`,
};

/** KEYS: index, flows. ARGV: member, ms (<= 0 deletes every key: `clear` and `ttl(0)`). */
const expireFlow: LuaCommand = {
  numberOfKeys: 2,
  lua: `${COMMON}
local ms = tonumber(ARGV[2])
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if ms <= 0 or redis.call('PEXPIRE', key, ms) == 0 then
    redis.call('DEL', key)
    redis.call('SREM', KEYS[1], key)
  end
end
if redis.call('SCARD', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
redis.call('PEXPIRE', KEYS[1], ms)
redis.call('ZADD', KEYS[2], now_ms() + ms, ARGV[1])
return 1`,
};

/** KEYS: value, index, flows. ARGV: member, ms. Returns 1 when the key existed. */
const expireKey: LuaCommand = {
  numberOfKeys: 3,
  lua: `${COMMON}
local ms = tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], KEYS[1])
  forget_if_empty(KEYS[2], KEYS[3], ARGV[1])
  return 0
end
if ms <= 0 then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], KEYS[1])
  forget_if_empty(KEYS[2], KEYS[3], ARGV[1])
  return 1
end
redis.call('PEXPIRE', KEYS[1], ms)
track(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ms)
return 1`,
};

/**
 * KEYS: index, flows. ARGV: member. Returns a flat list of value key, JSON value pairs for the flow's
 * live keys; index members whose key has expired are dropped on the way (as `expireKey` does).
 */
const entries: LuaCommand = {
  numberOfKeys: 2,
  lua: `${COMMON}
local pairs_out = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local value = redis.call('GET', key)
  if value then
    table.insert(pairs_out, key)
    table.insert(pairs_out, value)
  else
    redis.call('SREM', KEYS[1], key)
  end
end
forget_if_empty(KEYS[1], KEYS[2], ARGV[1])
return pairs_out`,
};

/** KEYS: flows. Drops flows whose every key has expired, then counts the rest. */
const activeFlows: LuaCommand = {
  numberOfKeys: 1,
  lua: `${COMMON}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms())
return redis.call('ZCARD', KEYS[1])`,
};

export const REDIS_COMMANDS = {
  svcFlowSet: set,
  svcFlowIncrBy: incrBy,
  svcFlowCas: cas,
  svcFlowDelete: del,
  svcFlowExpire: expireFlow,
  svcFlowExpireKey: expireKey,
  svcFlowEntries: entries,
  svcFlowActive: activeFlows,
} as const;

export type RedisCommandName = keyof typeof REDIS_COMMANDS;
