/**
 * The one write a fleet makes, as a Lua script so it is atomic on the server: the next fleet version,
 * the imposters it sets or removes (each stored whole, with that version), and the change notice. Two
 * nodes writing one imposter at once are ordered by the server: the later version wins whole.
 *
 * KEYS: the imposters hash, the version counter. ARGV: the change channel, '1' to replace the whole set
 * (DELETE /imposters) else '0', then pairs of port and entry JSON (`{"config":...,"enabled":...}`) or ''
 * (removed). The notice is `<version> <ports comma-separated>` or `<version> *` for the whole set.
 */
export const COMMIT_SCRIPT = `
local v = redis.call('INCR', KEYS[2])
if ARGV[2] == '1' then redis.call('DEL', KEYS[1]) end
local ports = {}
for i = 3, #ARGV, 2 do
  local port, entry = ARGV[i], ARGV[i + 1]
  if entry == '' then
    redis.call('HDEL', KEYS[1], port)
  else
    redis.call('HSET', KEYS[1], port, '{"version":' .. v .. ',' .. string.sub(entry, 2))
  end
  ports[#ports + 1] = port
end
local which = table.concat(ports, ',')
if ARGV[2] == '1' then which = '*' end
redis.call('PUBLISH', ARGV[1], v .. ' ' .. which)
return v
`;
