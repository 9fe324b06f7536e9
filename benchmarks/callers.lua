-- wrk script of http.sh's many-callers run: every request asks /quotes for one of CALLERS
-- symbols at random, and the sample keys /quotes's limit (5 per 10 s) by symbol, so the
-- calls spread over that many keys and most of them are admitted.
local callers = tonumber(os.getenv("CALLERS") or "100000")
local counter = 0

function init(args)
	math.randomseed(os.time() + counter)
end

function setup(thread)
	counter = counter + 1
	thread:set("id", counter)
end

request = function()
	return wrk.format("GET", "/quotes?symbol=s" .. math.random(1, callers))
end
