-- The acquire of one sliding-log limit, rejected calls not recorded: the same decision and
-- reply as limits.lua with algorithms/sliding_log.lua, in fewer Lua steps (no tables of
-- limits or algorithms, no closures for Redis's Lua to collect): see
-- benchmarks/script-variants for what that saves per call.
-- The arguments are limits.lua's; a test runs both scripts on the same schedules.
local key = KEYS[1]
local permits = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local client_clock = now >= 0
if not client_clock then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local n = tonumber(ARGV[8])
local w = tonumber(ARGV[9])

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - w)
local used = redis.call('ZCARD', key)

if used + permits <= n then
  if permits == 1 then
    redis.call('ZADD', key, now, ARGV[5])
  else
    for p = 1, permits do
      redis.call('ZADD', key, now, ARGV[5] .. '.' .. p)
    end
  end
  -- see ttl_ms in limits.lua
  local ttl = math.ceil(w / 1000)
  if client_clock and ttl < 1000 then
    ttl = 1000
  end
  redis.call('PEXPIRE', key, ttl)
  return { 1, 1, n - used - permits, 0, w, now }
end

-- the wait until the call fits: its excess-th oldest entry must leave the window
local excess = used + permits - n
local oldest = redis.call('ZRANGE', key, excess - 1, excess - 1, 'WITHSCORES')
local newest = oldest
if excess < used then
  newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
end
local remaining = n - used
if remaining < 0 then
  remaining = 0
end
local reset = 0
if newest[2] ~= nil then
  reset = tonumber(newest[2]) + w - now
end
return { 0, 1, remaining, tonumber(oldest[2]) + w - now, reset, now }
