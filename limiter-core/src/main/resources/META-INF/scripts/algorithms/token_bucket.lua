-- Token bucket as GCRA: one string per limit, '<arrival>:<unit>': the theoretical arrival
-- time (the moment the bucket is full again) and the refill interval it was counted in,
-- both in microseconds. Each permit moves the arrival one interval (unit) later; a call
-- fits while it stays within n intervals of now. When the threshold, and so the interval,
-- changed since, the permits taken keep counting, refilled at the new rate.
--@functions
local function token_bucket_store(limit, now)
  limit.used = math.ceil((limit.arrival - now) / limit.unit)
  if limit.arrival > now then
    redis.call('SET', limit.key, string.format('%d:%d', limit.arrival, limit.unit), 'PX',
      ttl_ms(limit.arrival - now))
  else
    redis.call('DEL', limit.key)
  end
end
--@load
limit.arrival = now
local value = redis.call('GET', limit.key)
if value then
  local colon = string.find(value, ':', 1, true)
  local stored = tonumber(string.sub(value, 1, colon - 1))
  if stored > now then
    local unit = tonumber(string.sub(value, colon + 1))
    if unit == limit.unit then
      limit.arrival = stored
    else
      -- converted once, on the first call that brings the new interval, and stored at
      -- once so that the key lives as long as the permits count; rounded up, so that a
      -- change never adds room
      limit.arrival = now + math.ceil((stored - now) / unit * limit.unit)
      token_bucket_store(limit, now)
    end
  end
end
limit.used = math.ceil((limit.arrival - now) / limit.unit)
--@record
-- a rejected call that counts leaves the bucket empty, never emptier
limit.arrival = math.min(limit.arrival + permits * limit.unit, now + limit.n * limit.unit)
token_bucket_store(limit, now)
--@wait
wait = limit.arrival + (permits - limit.n) * limit.unit - now
--@reset
reset = limit.arrival - now
--@charge
-- a cost known after the call: the arrival moves on past a full bucket if need be
limit.arrival = limit.arrival + permits * limit.unit
token_bucket_store(limit, now)
--@release
limit.arrival = math.max(now, limit.arrival - permits * limit.unit)
token_bucket_store(limit, now)
