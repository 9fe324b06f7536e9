-- The start of every Limiter script: the time of the call, and the time to live of the
-- keys it writes. ARGV[3] is now in microseconds, or -1 to read the Redis server clock.

-- The time to live of a key whose state is empty after `micros`. On the application's
-- clock it is never under a second: Redis expires keys on its own clock, and must not
-- forget state that the application's clock still counts.
local client_clock = tonumber(ARGV[3]) >= 0
local function ttl_ms(micros)
  local ttl = math.ceil(micros / 1000)
  if client_clock and ttl < 1000 then
    return 1000
  end
  return ttl
end

local now = tonumber(ARGV[3])
if not client_clock then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
