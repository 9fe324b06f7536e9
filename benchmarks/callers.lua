-- wrk script of http.sh's runs over many callers: every request names one of CALLERS callers
-- at random, as PARAM=PREFIX<n> on the path given to wrk. The sample's many-callers run asks
-- /quotes?symbol=s<n> (100,000 symbols, its limit is per symbol); the applications' runs ask
-- /hit?user=u<n> (10 users, their limit is per user).
local callers = tonumber(os.getenv("CALLERS") or "100000")
local param = os.getenv("PARAM") or "symbol"
local prefix = os.getenv("PREFIX") or "s"
local counter = 0

function init(args)
	math.randomseed(os.time() + counter)
end

function setup(thread)
	counter = counter + 1
	thread:set("id", counter)
end

request = function()
	return wrk.format("GET", wrk.path .. "?" .. param .. "=" .. prefix .. math.random(1, callers))
end
