-- Sliding-window log: one sorted set per limit, scores are microseconds, members unique.
-- Checks every limit first and records only when all admit (or when rejected calls count).
--
-- KEYS[i]          the sorted set of limit i (all keys share one hash tag)
-- ARGV[1]          permits asked for
-- ARGV[2]          now in microseconds, or -1 to read the Redis server clock
-- ARGV[3]          1 to record rejected calls too, else 0
-- ARGV[4]          a member token unique to this call
-- ARGV[3 + 2i]     threshold of limit i
-- ARGV[4 + 2i]     window of limit i in microseconds
--
-- Returns {allowed (1 or 0), deciding limit (1-based), remaining, retry_after_us,
--          reset_after_us, now_us}
local permits = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local count_rejected = ARGV[3] == '1'
local token = ARGV[4]

if now < 0 then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end

local limit_count = #KEYS
local counts = {}
local allowed = 1
local decider = 1
local retry_after = 0

for i = 1, limit_count do
  local key = KEYS[i]
  local threshold = tonumber(ARGV[3 + 2 * i])
  local window = tonumber(ARGV[4 + 2 * i])
  -- the window is (now - window, now]: an entry scored now - window has left it
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  counts[i] = count
  local excess = count + permits - threshold
  if excess > 0 then
    -- the call passes once the excess-th oldest entry has left the window
    local oldest = redis.call('ZRANGE', key, excess - 1, excess - 1, 'WITHSCORES')
    local wait = tonumber(oldest[2]) + window - now
    if allowed == 1 or wait > retry_after then
      retry_after = wait
      decider = i
    end
    allowed = 0
  end
end

local record = allowed == 1 or count_rejected
local remaining = -1
for i = 1, limit_count do
  local key = KEYS[i]
  local threshold = tonumber(ARGV[3 + 2 * i])
  local window = tonumber(ARGV[4 + 2 * i])
  local count = counts[i]
  if record then
    if permits == 1 then
      redis.call('ZADD', key, now, token)
    else
      for p = 1, permits do
        redis.call('ZADD', key, now, token .. '.' .. p)
      end
    end
    count = count + permits
    if count_rejected and count > threshold then
      -- only the newest threshold entries can ever decide a call
      redis.call('ZREMRANGEBYRANK', key, 0, -threshold - 1)
      count = threshold
    end
    redis.call('PEXPIRE', key, math.ceil(window / 1000))
  end
  local left = threshold - count
  if left < 0 then
    left = 0
  end
  if allowed == 1 and (remaining < 0 or left < remaining) then
    remaining = left
    decider = i
  elseif allowed == 0 and i == decider then
    remaining = left
  end
end

local decider_window = tonumber(ARGV[4 + 2 * decider])
local reset_after = decider_window
if not record then
  local newest = redis.call('ZRANGE', KEYS[decider], -1, -1, 'WITHSCORES')
  reset_after = tonumber(newest[2]) + decider_window - now
end

return { allowed, decider, remaining, retry_after, reset_after, now }
