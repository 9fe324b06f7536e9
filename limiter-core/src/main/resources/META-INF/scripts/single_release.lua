-- The release of one limit whose algorithm gives its permits back without loading the
-- limit's state (a member removed: the end of a call in flight, a sliding log's refund),
-- the commonest end: limits.lua's 'r' for that case, in straight-line code, without the
-- table of algorithms. It follows prelude.lua; the release section of the limit's
-- algorithm stands where the marker does. The arguments are limits.lua's.
--@functions

local permits = tonumber(ARGV[2])
local token = ARGV[5]
local at = tonumber(ARGV[6])
local limit = { key = KEYS[1] }
do
--@release
end
return { now }
