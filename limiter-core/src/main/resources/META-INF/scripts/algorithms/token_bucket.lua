-- Token bucket as GCRA: one string per limit holding the theoretical arrival time (the
-- moment the bucket is full again), in microseconds. Each permit moves it one refill
-- interval (unit) later; a call fits while it stays within n intervals of now.
local function tokens_taken(limit, now)
  return math.ceil((limit.arrival - now) / limit.unit)
end

local function store_arrival(limit, now)
  if limit.arrival > now then
    redis.call('SET', limit.key, limit.arrival, 'PX', ttl_ms(limit.arrival - now))
  else
    redis.call('DEL', limit.key)
  end
end

algorithms['token_bucket'] = {
  load = function(limit, now)
    local arrival = tonumber(redis.call('GET', limit.key) or 0)
    if arrival < now then
      arrival = now
    end
    limit.arrival = arrival
    limit.used = tokens_taken(limit, now)
  end,
  record = function(limit, now, permits, token)
    -- a rejected call that counts leaves the bucket empty, never emptier
    limit.arrival = math.min(limit.arrival + permits * limit.unit, now + limit.n * limit.unit)
    limit.used = tokens_taken(limit, now)
    store_arrival(limit, now)
  end,
  wait = function(limit, now, permits)
    return limit.arrival + (permits - limit.n) * limit.unit - now
  end,
  reset = function(limit, now)
    return limit.arrival - now
  end,
  release = function(limit, now, permits, token, at)
    limit.arrival = math.max(now, limit.arrival - permits * limit.unit)
    store_arrival(limit, now)
  end
}
