-- Sliding buckets: one hash per limit, a field per slice (its index, now // slice), the
-- count of permits as value. A decision counts the current slice and the m whole slices
-- before it, where m slices cover the window, so no interval of length w holds more
-- than n; slices older than that are deleted as they are seen.
--@functions
local function slice_leaves(limit, index)
  return (index + limit.m + 1) * limit.unit
end

local function slice_count(limit, index)
  return limit.counts[index] or 0
end
--@load
limit.m = math.ceil(limit.w / limit.unit)
limit.current = math.floor(now / limit.unit)
local first = limit.current - limit.m
local fields = redis.call('HGETALL', limit.key)
local counts, used, stale = {}, 0, nil
for j = 1, #fields, 2 do
  local index = tonumber(fields[j])
  if index < first then
    stale = stale or {}
    stale[#stale + 1] = fields[j]
  else
    local count = tonumber(fields[j + 1])
    counts[index] = count
    used = used + count
  end
end
if stale then
  redis.call('HDEL', limit.key, unpack(stale))
end
limit.counts, limit.used = counts, used
--@record
local current = limit.current
limit.counts[current] = redis.call('HINCRBY', limit.key, current, permits)
limit.used = limit.used + permits
-- only rejected calls that count get past n: keep the newest permits
local over = limit.used - limit.n
local index = current - limit.m
while over > 0 and index <= current do
  local count = slice_count(limit, index)
  if count > 0 then
    local taken = math.min(count, over)
    limit.counts[index] = redis.call('HINCRBY', limit.key, index, -taken)
    over = over - taken
    limit.used = limit.used - taken
  end
  index = index + 1
end
redis.call('PEXPIRE', limit.key, ttl_ms(slice_leaves(limit, current) - now))
--@wait
-- the wait until the call fits: enough of the oldest slices must leave the window
local needed = limit.used + permits - limit.n
local freed = 0
wait = slice_leaves(limit, limit.current) - now
for index = limit.current - limit.m, limit.current do
  freed = freed + slice_count(limit, index)
  if freed >= needed then
    wait = slice_leaves(limit, index) - now
    break
  end
end
--@reset
reset = 0
for index = limit.current, limit.current - limit.m, -1 do
  if slice_count(limit, index) > 0 then
    reset = slice_leaves(limit, index) - now
    break
  end
end
--@slice
slice = slice_count(limit, limit.current)
--@charge
-- a cost known after the call: counted in the current slice, past n if need be
limit.counts[limit.current] = redis.call('HINCRBY', limit.key, limit.current, permits)
limit.used = limit.used + permits
redis.call('PEXPIRE', limit.key, ttl_ms(slice_leaves(limit, limit.current) - now))
--@release
local index = math.floor(at / limit.unit)
if index >= limit.current - limit.m and index <= limit.current then
  local taken = math.min(slice_count(limit, index), permits)
  if taken > 0 then
    limit.counts[index] = redis.call('HINCRBY', limit.key, index, -taken)
    limit.used = limit.used - taken
  end
end
