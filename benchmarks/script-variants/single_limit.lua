-- one limit, admitted calls only, one permit: the common case
local key = KEYS[1]
local token = ARGV[4]
local threshold = tonumber(ARGV[5])
local window = tonumber(ARGV[6])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count < threshold then
  redis.call('ZADD', key, now, token)
  redis.call('PEXPIRE', key, math.ceil(window / 1000))
  return { 1, 1, threshold - count - 1, 0, window, now }
end
local oldest = redis.call('ZRANGE', key, count - threshold, count - threshold, 'WITHSCORES')
return { 0, 1, 0, tonumber(oldest[2]) + window - now, (redis.call('PTTL', key) + 1) * 1000, now }
