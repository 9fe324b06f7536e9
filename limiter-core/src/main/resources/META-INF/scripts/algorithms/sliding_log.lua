-- Sliding-window log: one sorted set per limit, scores are microseconds, members unique.
-- The window is (now - w, now]: an entry scored now - w has left it.
--@load
redis.call('ZREMRANGEBYSCORE', limit.key, '-inf', now - limit.w)
limit.used = redis.call('ZCARD', limit.key)
--@record
if permits == 1 then
  redis.call('ZADD', limit.key, now, token)
else
  for p = 1, permits do
    redis.call('ZADD', limit.key, now, token .. '.' .. p)
  end
end
limit.used = limit.used + permits
if limit.used > limit.n then
  -- only rejected calls get here: the newest n entries decide every later call
  redis.call('ZREMRANGEBYRANK', limit.key, 0, -limit.n - 1)
  limit.used = limit.n
end
redis.call('PEXPIRE', limit.key, ttl_ms(limit.w))
limit.recorded = true
--@wait
-- the wait until the call fits: its excess-th oldest entry must leave the window
local excess = limit.used + permits - limit.n
local oldest = redis.call('ZRANGE', limit.key, excess - 1, excess - 1, 'WITHSCORES')
wait = tonumber(oldest[2]) + limit.w - now
--@reset
if limit.recorded then
  reset = limit.w
else
  local newest = redis.call('ZRANGE', limit.key, -1, -1, 'WITHSCORES')
  reset = (newest[2] == nil) and 0 or (tonumber(newest[2]) + limit.w - now)
end
--@release unloaded
if permits == 1 then
  redis.call('ZREM', limit.key, token)
else
  for p = 1, permits do
    redis.call('ZREM', limit.key, token .. '.' .. p)
  end
end
