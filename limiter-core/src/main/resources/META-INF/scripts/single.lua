-- The acquire of one limit with rejected calls not recorded, the commonest call: the
-- decision and reply of limits.lua for that case, in straight-line code. It follows
-- prelude.lua; the sections of the limit's algorithm (META-INF/scripts/algorithms/*.lua)
-- stand where the markers do, so a call builds no table of algorithms and no closures
-- beyond the fragment's own functions. The arguments are limits.lua's.
--@functions

local permits = tonumber(ARGV[2])
local token = ARGV[5]
local limit = { key = KEYS[1], n = tonumber(ARGV[8]), w = tonumber(ARGV[9]), unit = tonumber(ARGV[10]) or ARGV[10] }
do
--@load
end

local reset
if limit.used + permits <= limit.n then
  do
--@record
  end
  do
--@reset
  end
  return { 1, 1, limit.n - limit.used, 0, reset, now }
end

local wait
do
--@wait
end
do
--@reset
end
local remaining = limit.n - limit.used
if remaining < 0 then
  remaining = 0
end
return { 0, 1, remaining, wait, reset, now }
