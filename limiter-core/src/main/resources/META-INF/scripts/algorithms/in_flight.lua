-- Calls in flight: one sorted set per limit, a member per slot held (the call's unique
-- token), scored by the end of its lease in microseconds. A slot whose lease ended by now
-- is free; the instance running a call renews its lease (limits.lua's 'l'). The unit is
-- the longest wait a refusal names: a slot frees when any call ends, which no one knows.
--@load
redis.call('ZREMRANGEBYSCORE', limit.key, '-inf', now)
limit.used = redis.call('ZCARD', limit.key)
--@record
-- a rejected call that counts holds nothing: it never ends to give its slot back
if not limit.rejected then
  if permits == 1 then
    redis.call('ZADD', limit.key, now + limit.w, token)
  else
    for p = 1, permits do
      redis.call('ZADD', limit.key, now + limit.w, token .. '.' .. p)
    end
  end
  limit.used = limit.used + permits
  redis.call('PEXPIRE', limit.key, ttl_ms(limit.w))
end
--@wait
-- the sooner of the hint and the lease whose end makes room
local excess = limit.used + permits - limit.n
local ending = redis.call('ZRANGE', limit.key, excess - 1, excess - 1, 'WITHSCORES')
wait = tonumber(ending[2]) - now
if wait > limit.unit then
  wait = limit.unit
end
--@reset
local last = redis.call('ZRANGE', limit.key, -1, -1, 'WITHSCORES')
reset = (last[2] == nil) and 0 or (tonumber(last[2]) - now)
--@release unloaded
if permits == 1 then
  redis.call('ZREM', limit.key, token)
else
  for p = 1, permits do
    redis.call('ZREM', limit.key, token .. '.' .. p)
  end
end
