-- Token bucket as GCRA: one string per limit holding the theoretical arrival time (the
-- moment the bucket is full again), in microseconds. Each permit moves it one refill
-- interval (unit) later; a call fits while it stays within n intervals of now.
--@functions
local function token_bucket_store(limit, now)
  limit.used = math.ceil((limit.arrival - now) / limit.unit)
  if limit.arrival > now then
    redis.call('SET', limit.key, limit.arrival, 'PX', ttl_ms(limit.arrival - now))
  else
    redis.call('DEL', limit.key)
  end
end
--@load
local arrival = tonumber(redis.call('GET', limit.key) or 0)
if arrival < now then
  arrival = now
end
limit.arrival = arrival
limit.used = math.ceil((arrival - now) / limit.unit)
--@record
-- a rejected call that counts leaves the bucket empty, never emptier
limit.arrival = math.min(limit.arrival + permits * limit.unit, now + limit.n * limit.unit)
token_bucket_store(limit, now)
--@wait
wait = limit.arrival + (permits - limit.n) * limit.unit - now
--@reset
reset = limit.arrival - now
--@release
limit.arrival = math.max(now, limit.arrival - permits * limit.unit)
token_bucket_store(limit, now)
