/**
 * The one write a fleet makes, as a Lua script so it is atomic on the server: the next fleet version,
 * the imposters it sets or removes (each stored whole, with that version), and the change notice. Two
 * nodes writing one imposter at once are ordered by the server: the later version wins whole. An
 * imposter created anew or removed starts its shared journal, counts and cycles over; one removed
 * also leaves its flow state behind (the next imposter on the port reads another key space).
 *
 * KEYS: the imposters hash, the version counter. ARGV: the change channel, '1' to replace the whole set
 * (DELETE /imposters), 'if:<version>' to write the one port only while its stored version is that
 * (a proxy recording; else nothing is written and the reply is -1), else '0'; the key prefix, then triples of port, entry JSON (`{"config":...,"enabled":...}`)
 * or '' (removed), and '1' when the port's journal starts over. The notice is `<version> <ports
 * comma-separated>` or `<version> *` for the whole set.
 */
export const COMMIT_SCRIPT = `
local expected = string.match(ARGV[2], '^if:(%d+)$')
if expected then
  local stored = redis.call('HGET', KEYS[1], ARGV[4])
  local at = stored and tonumber(string.match(stored, '^{"version":(%d+)')) or 0
  if at ~= tonumber(expected) then return -1 end
end
local v = redis.call('INCR', KEYS[2])
if ARGV[2] == '1' then redis.call('DEL', KEYS[1]) end
local ports = {}
for i = 4, #ARGV, 3 do
  local port, entry = ARGV[i], ARGV[i + 1]
  if entry == '' then
    redis.call('HDEL', KEYS[1], port)
  else
    redis.call('HSET', KEYS[1], port, '{"version":' .. v .. ',' .. string.sub(entry, 2))
  end
  if entry == '' or ARGV[i + 2] == '1' then
    redis.call('DEL', ARGV[3] .. 'journal:' .. port, ARGV[3] .. 'journal:' .. port .. ':meta', ARGV[3] .. 'cycles:' .. port)
  end
  if entry == '' then redis.call('INCR', ARGV[3] .. 'flowepoch:' .. port) end
  ports[#ports + 1] = port
end
local which = table.concat(ports, ',')
if ARGV[2] == '1' then which = '*' end
redis.call('PUBLISH', ARGV[1], v .. ' ' .. which)
return v
`;

/**
 * Appends a batch of records to an imposter's journal stream, atomically: fleet-wide 1-based indices
 * in the order Redis runs the batches (stream ids `0-<index>`), retention trimmed to `cap` with the
 * highest evicted index kept (`x-svc-truncated`), counts shared, and a notice for other nodes' SSE.
 *
 * KEYS: the stream, its meta hash (tip, count, lost, evicted, epoch). ARGV: cap, count delta, lost
 * delta, notice channel, port, node id, then the records (JSON). Returns the first index (0: none).
 */
export const APPEND_SCRIPT = `
local n = #ARGV - 6
if ARGV[2] ~= '0' then redis.call('HINCRBY', KEYS[2], 'count', ARGV[2]) end
if ARGV[3] ~= '0' then redis.call('HINCRBY', KEYS[2], 'lost', ARGV[3]) end
if n == 0 then return 0 end
local first = redis.call('HINCRBY', KEYS[2], 'tip', n) - n + 1
for i = 1, n do
  redis.call('XADD', KEYS[1], '0-' .. string.format('%d', first + i - 1), 'r', ARGV[6 + i])
end
local cap = tonumber(ARGV[1])
local len = redis.call('XLEN', KEYS[1])
if len > cap then
  local old = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', len - cap)
  redis.call('XTRIM', KEYS[1], 'MAXLEN', cap)
  redis.call('HSET', KEYS[2], 'evicted', string.sub(old[#old][1], 3))
end
redis.call('PUBLISH', ARGV[4], ARGV[5] .. ' ' .. string.format('%d', first) .. ' ' .. n .. ' ' .. ARGV[6])
return first
`;

/**
 * Clears an imposter's journal stream: every record (count and lost back to 0) or those with the given
 * indices (count less those removed). Indices keep counting; the epoch tells mirrors to reload.
 *
 * KEYS: the stream, its meta hash. ARGV: indices (none: all). Returns the new epoch.
 */
export const CLEAR_SCRIPT = `
if #ARGV == 0 then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[2], 'count', 0, 'lost', 0)
else
  local removed = 0
  for i = 1, #ARGV do removed = removed + redis.call('XDEL', KEYS[1], '0-' .. ARGV[i]) end
  local count = tonumber(redis.call('HGET', KEYS[2], 'count') or '0') - removed
  if count < 0 then count = 0 end
  redis.call('HSET', KEYS[2], 'count', count)
end
return redis.call('HINCRBY', KEYS[2], 'epoch', 1)
`;

/**
 * Claims a proxyOnce recording (RecordingClaims): refused while another node holds it, or while the
 * imposter's stored version is newer than the one the asking node runs (the recording may be in it).
 *
 * KEYS: the claim, the imposters hash. ARGV: port, this claim's token, its lifetime (ms), the version the
 * node runs. Returns 'claimed', 'held' or 'behind'.
 */
export const CLAIM_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'held' end
local stored = redis.call('HGET', KEYS[2], ARGV[1])
local at = stored and tonumber(string.match(stored, '^{"version":(%d+)')) or 0
if at > tonumber(ARGV[4]) then return 'behind' end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 'claimed'
`;

/** Renews (ARGV[2]: a lifetime in ms) or, without one, drops the claim KEYS[1] if it is still token ARGV[1]'s. */
export const RENEW_CLAIM_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('DEL', KEYS[1])
`;
