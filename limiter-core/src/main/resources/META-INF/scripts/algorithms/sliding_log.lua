-- Sliding-window log: one sorted set per limit, scores are microseconds, members unique.
-- The window is (now - w, now]: an entry scored now - w has left it.
algorithms['sliding_log'] = {
  load = function(limit, now)
    redis.call('ZREMRANGEBYSCORE', limit.key, '-inf', now - limit.w)
    limit.used = redis.call('ZCARD', limit.key)
  end,
  record = function(limit, now, permits, token)
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
  end,
  -- the wait until the call fits: its excess-th oldest entry must leave the window
  wait = function(limit, now, permits)
    local excess = limit.used + permits - limit.n
    local oldest = redis.call('ZRANGE', limit.key, excess - 1, excess - 1, 'WITHSCORES')
    return tonumber(oldest[2]) + limit.w - now
  end,
  reset = function(limit, now)
    if limit.recorded then
      return limit.w
    end
    local newest = redis.call('ZRANGE', limit.key, -1, -1, 'WITHSCORES')
    if newest[2] == nil then
      return 0
    end
    return tonumber(newest[2]) + limit.w - now
  end,
  release = function(limit, now, permits, token, at)
    if permits == 1 then
      redis.call('ZREM', limit.key, token)
    else
      for p = 1, permits do
        redis.call('ZREM', limit.key, token .. '.' .. p)
      end
    end
  end
}
