-- The acquire of one token-bucket limit (GCRA), rejected calls not recorded: the same
-- decision and reply as limits.lua with algorithms/token_bucket.lua, in fewer Lua steps.
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
local unit = tonumber(ARGV[10])

local arrival = tonumber(redis.call('GET', key) or 0)
if arrival < now then
  arrival = now
end
local used = math.ceil((arrival - now) / unit)

if used + permits <= n then
  arrival = math.min(arrival + permits * unit, now + n * unit)
  used = math.ceil((arrival - now) / unit)
  if arrival > now then
    -- see ttl_ms in limits.lua
    local ttl = math.ceil((arrival - now) / 1000)
    if client_clock and ttl < 1000 then
      ttl = 1000
    end
    redis.call('SET', key, arrival, 'PX', ttl)
  else
    redis.call('DEL', key)
  end
  return { 1, 1, n - used, 0, arrival - now, now }
end

local remaining = n - used
if remaining < 0 then
  remaining = 0
end
return { 0, 1, remaining, arrival + (permits - n) * unit - now, arrival - now, now }
