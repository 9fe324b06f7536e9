-- Calendar windows: one string per limit, '<start>:<count>': the start of the window the
-- permits were counted in, in microseconds, and their number. Lua in Redis knows no time
-- zones, so the unit is the boundaries of three windows around the application's clock,
-- 'previous:start:end:next'; the window is the one holding the server's time (the first
-- or the last when the clocks are a whole window apart). A count of another window is
-- none, and the key expires at the end of its window.
--@functions
local function calendar_store(limit, now)
  if limit.used > 0 then
    redis.call('SET', limit.key, string.format('%d:%d', limit.start, limit.used), 'PX',
      ttl_ms(math.max(limit.stop - now, 1)))
  else
    redis.call('DEL', limit.key)
  end
end
--@load
local bounds = {}
for boundary in string.gmatch(limit.unit, '%d+') do
  bounds[#bounds + 1] = tonumber(boundary)
end
local first = 1
if now >= bounds[3] then
  first = 3
elseif now >= bounds[2] then
  first = 2
end
limit.start, limit.stop = bounds[first], bounds[first + 1]
limit.used = 0
local value = redis.call('GET', limit.key)
if value then
  local colon = string.find(value, ':', 1, true)
  if tonumber(string.sub(value, 1, colon - 1)) == limit.start then
    limit.used = tonumber(string.sub(value, colon + 1))
  end
end
--@record
-- a rejected call that counts fills the window, never more
limit.used = math.min(limit.used + permits, math.max(limit.n, limit.used))
calendar_store(limit, now)
--@wait
wait = math.max(limit.stop - now, 1)
--@reset
reset = 0
if limit.used > 0 then
  reset = math.max(limit.stop - now, 1)
end
--@charge
-- a cost known after the call: counted in this window, past n if need be
limit.used = limit.used + permits
calendar_store(limit, now)
--@release
if at >= limit.start and at < limit.stop then
  limit.used = math.max(0, limit.used - permits)
  calendar_store(limit, now)
end
