-- Limiter's decision script: checks every limit of a call first and records only when all
-- admit (or when rejected calls count), whatever algorithm counts each limit. It follows
-- prelude.lua (`now`, `ttl_ms`); the sections of the fragments of the algorithms a call
-- uses (META-INF/scripts/algorithms/*.lua) become the functions of `algorithms` where the
-- marker below stands.
--
-- KEYS[i]          the state of limit i (all keys share one hash tag)
-- ARGV[1]          what to do: 'a' acquire, 'u' read usage, 'r' release a grant,
--                  'c' charge a grant more (or less, when the permits are negative),
--                  'm' move a grant's permits to now (count them from now on),
--                  'x' forget the keys, 'l' renew the leases of slots in flight
-- ARGV[2]          permits asked for (or given back)
-- ARGV[3]          now in microseconds, or -1 to read the Redis server clock
-- ARGV[4]          1 to record rejected calls too, else 0
-- ARGV[5]          a member token unique to this call (or the released call's)
-- ARGV[6]          the released call's time in microseconds, else 0; in an acquire, how
--                  many of the limits (the first ones) the call enforces, 0 for all: the
--                  rest only watch it (shadow mode) under keys of their own, and are
--                  decided in the same call once the enforced ones admit it
-- ARGV[2 + 5i]     algorithm of limit i
-- ARGV[3 + 5i]     threshold of limit i
-- ARGV[4 + 5i]     window of limit i in microseconds
-- ARGV[5 + 5i]     the algorithm's unit of limit i in microseconds (slice, refill interval),
--                  or a text the algorithm reads (a calendar's boundaries)
-- ARGV[6 + 5i]     the penalty of limit i in microseconds, 0 for none: once limit i rejects
--                  a call, every call of the key is refused for that long, whatever the
--                  window holds (the end is kept in KEYS[i]..':p', in the same slot)
--
-- Acquire returns {allowed (1 or 0), deciding limit (1-based), remaining, retry_after_us,
--                  reset_after_us, now_us}, followed by the same six for the watched
--                  limits (their deciding limit counted among them) when there are some
--                  and the enforced ones admitted the call
-- Usage returns {used, remaining, reset_after_us, current slice (-1 when none),
--               penalty_left_us} per limit, then now_us
-- Charge returns the reply of an admitted acquire, after the charge
-- Release, move and forget return {now_us}
-- Renew takes KEYS[i] with ARGV[3 + 2i] the member of a slot held there and ARGV[4 + 2i]
--       its lease in microseconds, and returns {slots renewed, now_us}
local algorithms = {}

--@algorithms

local mode = ARGV[1]
local permits = tonumber(ARGV[2])
local count_rejected = ARGV[4] == '1'
local token = ARGV[5]

if mode == 'x' then
  redis.call('DEL', unpack(KEYS))
  for i = 1, #KEYS do
    redis.call('DEL', KEYS[i] .. ':p')
  end
  return { now }
end

if mode == 'l' then
  -- a lease that ended stays ended, whether or not a later call trimmed it: its slot may
  -- be another call's by now, and a paused instance that wakes up must not take it back
  local renewed = 0
  for i = 1, #KEYS do
    local member, lease = ARGV[3 + 2 * i], tonumber(ARGV[4 + 2 * i])
    local ends = redis.call('ZSCORE', KEYS[i], member)
    if ends and tonumber(ends) > now then
      redis.call('ZADD', KEYS[i], now + lease, member)
      redis.call('PEXPIRE', KEYS[i], ttl_ms(lease))
      renewed = renewed + 1
    end
  end
  return { renewed, now }
end

-- the limits first to last, each with its state read
local function loaded(first, last)
  local limits = {}
  for i = first, last do
    local arg = 2 + 5 * i
    local limit = { key = KEYS[i], n = tonumber(ARGV[arg + 1]), w = tonumber(ARGV[arg + 2]),
                    unit = tonumber(ARGV[arg + 3]) or ARGV[arg + 3], algorithm = algorithms[ARGV[arg]],
                    penalty = tonumber(ARGV[arg + 4]) }
    limit.algorithm.load(limit, now)
    if limit.penalty > 0 then
      local ends = tonumber(redis.call('GET', limit.key .. ':p'))
      if ends and ends > now then
        limit.blocked = ends
      end
    end
    limits[#limits + 1] = limit
  end
  return limits
end

-- the decision of an acquire under some limits, all or nothing
local function decide(limits)
  local allowed = 1
  for _, limit in ipairs(limits) do
    if limit.blocked or limit.used + permits > limit.n then
      allowed = 0
    end
  end

  if allowed == 1 or count_rejected then
    for _, limit in ipairs(limits) do
      if allowed == 0 then
        limit.rejected = true
      end
      limit.algorithm.record(limit, now, permits, token)
    end
  end

  local decider, remaining, retry_after = 1, -1, 0
  if allowed == 1 then
    for i, limit in ipairs(limits) do
      local left = limit.n - limit.used
      if remaining < 0 or left < remaining then
        remaining, decider = left, i
      end
    end
  else
    -- the limit that frees up last decides, measured on the state as it is now (with this
    -- call in it when rejected calls count); a limit with a penalty that rejects starts it,
    -- and one serving it waits it out
    for i, limit in ipairs(limits) do
      local wait
      if limit.blocked then
        wait = limit.blocked - now
      elseif limit.used + permits > limit.n then
        wait = limit.algorithm.wait(limit, now, permits)
        if limit.penalty > 0 then
          limit.blocked = now + limit.penalty
          redis.call('SET', limit.key .. ':p', limit.blocked, 'PX', ttl_ms(limit.penalty))
          if limit.penalty > wait then
            wait = limit.penalty
          end
        end
      end
      if wait and (retry_after == 0 or wait > retry_after) then
        retry_after, decider = wait, i
      end
    end
    remaining = limits[decider].n - limits[decider].used
    if remaining < 0 or limits[decider].blocked then
      remaining = 0
    end
  end

  return { allowed, decider, remaining, retry_after, limits[decider].algorithm.reset(limits[decider], now), now }
end

if mode == 'a' then
  local enforced = tonumber(ARGV[6])
  if enforced == 0 then
    enforced = #KEYS
  end
  local reply = decide(loaded(1, enforced))
  if reply[1] == 1 and enforced < #KEYS then
    -- the watched limits see the call only once it is admitted, as if asked after it
    for _, value in ipairs(decide(loaded(enforced + 1, #KEYS))) do
      reply[#reply + 1] = value
    end
  end
  return reply
end

if mode == 'r' then
  -- an end or a refund: an algorithm whose release reads nothing a load sets (a member
  -- removed) gives the permits back without loading the limit first
  local at = tonumber(ARGV[6])
  for i = 1, #KEYS do
    local algorithm = algorithms[ARGV[2 + 5 * i]]
    local limit
    if algorithm.unloaded then
      limit = { key = KEYS[i] }
    else
      limit = loaded(i, i)[1]
    end
    algorithm.release(limit, now, permits, token, at)
  end
  return { now }
end

local limits = loaded(1, #KEYS)

if mode == 'u' then
  local reply = {}
  for i, limit in ipairs(limits) do
    local remaining = limit.n - limit.used
    if remaining < 0 or limit.blocked then
      remaining = 0
    end
    local slice = -1
    if limit.algorithm.slice then
      slice = limit.algorithm.slice(limit)
    end
    reply[#reply + 1] = limit.used
    reply[#reply + 1] = remaining
    reply[#reply + 1] = limit.algorithm.reset(limit, now)
    reply[#reply + 1] = slice
    reply[#reply + 1] = limit.blocked and (limit.blocked - now) or 0
  end
  reply[#reply + 1] = now
  return reply
end

if mode == 'm' then
  -- a call that counts from when it was done rather than from its turn: given back, then
  -- taken again now, on the state as the release left it
  local at = tonumber(ARGV[6])
  for _, limit in ipairs(limits) do
    limit.algorithm.release(limit, now, permits, token, at)
    limit.algorithm.load(limit, now)
    limit.algorithm.record(limit, now, permits, token)
  end
  return { now }
end

if mode == 'c' then
  -- never a rejection: the permits count even past n, and later calls wait for room
  local at = tonumber(ARGV[6])
  local decider, remaining = 1, nil
  for i, limit in ipairs(limits) do
    if permits > 0 then
      limit.algorithm.charge(limit, now, permits)
    else
      limit.algorithm.release(limit, now, -permits, token, at)
    end
    local left = limit.n - limit.used
    if remaining == nil or left < remaining then
      remaining, decider = left, i
    end
  end
  if remaining < 0 then
    remaining = 0
  end
  return { 1, decider, remaining, 0, limits[decider].algorithm.reset(limits[decider], now), now }
end

