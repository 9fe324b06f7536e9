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

-- The oldest and the newest slice of the window holding permits, from the fields as
-- loaded: one pass over the slices there are, rather than over all m + 1.
local function slices_held(limit)
  if not limit.held then
    local fields, counts, oldest, newest = limit.fields, limit.counts, nil, nil
    for j = 1, #fields, 2 do
      local index = tonumber(fields[j])
      local count = counts[index]
      if count and count > 0 and index <= limit.current then
        if oldest == nil or index < oldest then
          oldest = index
        end
        if newest == nil or index > newest then
          newest = index
        end
      end
    end
    limit.held, limit.held_oldest, limit.held_newest = true, oldest, newest
  end
  return limit.held_oldest, limit.held_newest
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
-- kept for a rejected call's wait and reset until the state changes (record, charge and
-- release drop them); what slices_held read of an earlier load goes with them
limit.counts, limit.used, limit.fields, limit.held = counts, used, fields, nil
--@record
limit.fields = nil
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
wait = slice_leaves(limit, limit.current) - now
if needed == 1 and limit.fields then
  -- counts are never negative: the first permit to leave is the oldest slice's
  local oldest = slices_held(limit)
  if oldest then
    wait = slice_leaves(limit, oldest) - now
  end
else
  local freed = 0
  for index = limit.current - limit.m, limit.current do
    freed = freed + slice_count(limit, index)
    if freed >= needed then
      wait = slice_leaves(limit, index) - now
      break
    end
  end
end
--@reset
reset = 0
if limit.fields then
  local _, newest = slices_held(limit)
  if newest then
    reset = slice_leaves(limit, newest) - now
  end
else
  for index = limit.current, limit.current - limit.m, -1 do
    if slice_count(limit, index) > 0 then
      reset = slice_leaves(limit, index) - now
      break
    end
  end
end
--@slice
slice = slice_count(limit, limit.current)
--@charge
-- a cost known after the call: counted in the current slice, past n if need be
limit.fields = nil
limit.counts[limit.current] = redis.call('HINCRBY', limit.key, limit.current, permits)
limit.used = limit.used + permits
redis.call('PEXPIRE', limit.key, ttl_ms(slice_leaves(limit, limit.current) - now))
--@release
limit.fields = nil
local index = math.floor(at / limit.unit)
if index >= limit.current - limit.m and index <= limit.current then
  local taken = math.min(slice_count(limit, index), permits)
  if taken > 0 then
    limit.counts[index] = redis.call('HINCRBY', limit.key, index, -taken)
    limit.used = limit.used - taken
  end
end
