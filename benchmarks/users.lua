-- wrk script of http.sh's application runs: every request names one of USERS users at
-- random in the "user" parameter, the key of the apps' limits (5 per 4 s on /hit, the
-- gateway routes' bench.threshold per bench.period-seconds), on the path given to wrk.
local users = tonumber(os.getenv("USERS") or "10")
local counter = 0

function init(args)
	math.randomseed(os.time() + counter)
end

function setup(thread)
	counter = counter + 1
	thread:set("id", counter)
end

request = function()
	return wrk.format("GET", wrk.path .. "?user=u" .. math.random(1, users))
end
