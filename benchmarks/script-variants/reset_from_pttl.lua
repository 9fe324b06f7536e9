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

-- The wait until limit i admits the call: its excess-th oldest entry must leave the window.
local function wait_for(i, excess)
  local oldest = redis.call('ZRANGE', KEYS[i], excess - 1, excess - 1, 'WITHSCORES')
  return tonumber(oldest[2]) + tonumber(ARGV[4 + 2 * i]) - now
end

-- The longest wait over all limits and the limit that imposes it; 0 when all admit.
local function longest_wait()
  local longest, decider = 0, 1
  for i = 1, limit_count do
    local excess = counts[i] + permits - tonumber(ARGV[3 + 2 * i])
    if excess > 0 then
      local wait = wait_for(i, excess)
      if longest == 0 or wait > longest then
        longest, decider = wait, i
      end
    end
  end
  return longest, decider
end

local allowed = 1
for i = 1, limit_count do
  local key = KEYS[i]
  -- the window is (now - window, now]: an entry scored now - window has left it
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - tonumber(ARGV[4 + 2 * i]))
  counts[i] = redis.call('ZCARD', key)
  if counts[i] + permits > tonumber(ARGV[3 + 2 * i]) then
    allowed = 0
  end
end

local retry_after, decider = 0, 1
if allowed == 0 and not count_rejected then
  retry_after, decider = longest_wait()
end

local record = allowed == 1 or count_rejected
if record then
  for i = 1, limit_count do
    local key = KEYS[i]
    local threshold = tonumber(ARGV[3 + 2 * i])
    if permits == 1 then
      redis.call('ZADD', key, now, token)
    else
      for p = 1, permits do
        redis.call('ZADD', key, now, token .. '.' .. p)
      end
    end
    counts[i] = counts[i] + permits
    if counts[i] > threshold then
      -- only rejected calls get here: the newest threshold entries decide every later call
      redis.call('ZREMRANGEBYRANK', key, 0, -threshold - 1)
      counts[i] = threshold
    end
    redis.call('PEXPIRE', key, math.ceil(tonumber(ARGV[4 + 2 * i]) / 1000))
  end
  if allowed == 0 then
    -- the rejected call is in the log now, so the wait is measured on the log after it
    retry_after, decider = longest_wait()
  end
end

local remaining = -1
for i = 1, limit_count do
  local left = tonumber(ARGV[3 + 2 * i]) - counts[i]
  if left < 0 then
    left = 0
  end
  if allowed == 1 and (remaining < 0 or left < remaining) then
    remaining, decider = left, i
  end
end
if allowed == 0 then
  remaining = tonumber(ARGV[3 + 2 * decider]) - counts[decider]
end

local decider_window = tonumber(ARGV[4 + 2 * decider])
local reset_after = decider_window
if not record then
  reset_after = redis.call('PTTL', KEYS[decider]) * 1000
end

return { allowed, decider, remaining, retry_after, reset_after, now }
