#!/usr/bin/env python3
"""Redis's own time per call of Limiter's scripts, of proposals, and of Spring Cloud Gateway's
script, measured inside Redis: each script runs N times in a loop within one EVAL, between two
TIME calls, so neither the network nor the client counts, only Lua and the commands.

Scripts are read from limiter-core as the engine composes them (prelude.lua, then limits.lua
with one algorithm's fragment: "composed", or single.lua with its sections inlined: "single"). Proposals are derived
from them here. Variants alternate for ROUNDS rounds and the median is printed (the machine
is shared: medians of alternating rounds, not single runs).

    python3 benchmarks/script-variants/compare.py          # ROUNDS=9 N=2000 by default

Rejected: a hot key full for an hour (100 entries in the log). Admitted: a fresh key per call.
Needs redis-server and redis-cli on the PATH, and Spring Cloud Gateway's server jar in ~/.m2.
"""
import glob
import os
import random
import statistics
import subprocess
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, '..', '..', 'limiter-core', 'src', 'main', 'resources', 'META-INF', 'scripts')
N = int(os.environ.get('N', '2000'))
ROUNDS = int(os.environ.get('ROUNDS', '9'))


def read(path):
    with open(path) as f:
        return f.read()


# Sections of a fragment as dev.limiter.redis.ScriptSources reads them (this mirrors its
# composition so that the scripts are measured without a JVM; the test suite runs the
# Java composition).
FUNCTIONS = {'load': ('limit, now', None), 'record': ('limit, now, permits, token', None),
             'wait': ('limit, now, permits', 'wait'), 'reset': ('limit, now', 'reset'),
             'slice': ('limit', 'slice'), 'release': ('limit, now, permits, token, at', None)}


def sections(algorithm):
    result, name = {}, None
    for line in read(os.path.join(SCRIPTS, 'algorithms', algorithm + '.lua')).split('\n'):
        if line.startswith('--@'):
            name = line[3:].strip()
            result[name] = ''
        elif name is not None and line:
            result[name] += line + '\n'
    return result


def prelude():
    return read(os.path.join(SCRIPTS, 'prelude.lua')) + '\n'


def composed(algorithm):
    parts = sections(algorithm)
    table = f"algorithms['{algorithm}'] = {{\n"
    for name, (params, sets) in FUNCTIONS.items():
        if name in parts:
            table += f'{name} = function({params})\n' + (f'local {sets}\n' if sets else '') + parts[name] \
                + (f'return {sets}\n' if sets else '') + 'end,\n'
    table += '}\n'
    return prelude() + read(os.path.join(SCRIPTS, 'limits.lua')).replace(
        '--@algorithms\n', parts.get('functions', '') + table)


def single(algorithm):
    source = read(os.path.join(SCRIPTS, 'single.lua'))
    for name, text in sections(algorithm).items():
        source = source.replace('--@' + name + '\n', text)
    return prelude() + source.replace('--@functions\n', '')


def gateway():
    jars = glob.glob(os.path.expanduser(
        '~/.m2/repository/org/springframework/cloud/spring-cloud-gateway-server*/*/spring-cloud-gateway-server*.jar'))
    for jar in sorted(jars):
        with zipfile.ZipFile(jar) as z:
            if 'META-INF/scripts/request_rate_limiter.lua' in z.namelist():
                return z.read('META-INF/scripts/request_rate_limiter.lua').decode()
    raise SystemExit('Spring Cloud Gateway server jar not found in ~/.m2')


# Proposal: reset_after of a rejection from the key's PTTL (ms, rounded up by 2 ms so it is
# never early) instead of reading the newest entry's score.
def single_log_pttl():
    source = single('sliding_log')
    assert "local newest = redis.call('ZRANGE'" in source
    return source.replace(
        "  local newest = redis.call('ZRANGE', limit.key, -1, -1, 'WITHSCORES')",
        "  local newest = { 0, (redis.call('PTTL', limit.key) + 2) * 1000 + now - limit.w }")


def looped(source, fresh_keys):
    keys = '{' + ', '.join(f"'{k}:' .. run .. ':' .. i" for k in 'fg'[:fresh_keys]) + '}' if fresh_keys else 'KEYS'
    return f"""local function body(KEYS, ARGV)
{source}
end
local n = tonumber(ARGV[1])
local run = ARGV[2]
local args = {{}}
for j = 3, #ARGV do args[j - 2] = ARGV[j] end
local t0 = redis.call('TIME')
for i = 1, n do body({keys}, args) end
local t1 = redis.call('TIME')
return (tonumber(t1[1]) - tonumber(t0[1])) * 1000000 + tonumber(t1[2]) - tonumber(t0[2])
"""


# ARGV of limits.lua: mode, permits, now (-1: the server's TIME), count rejected, member,
# released at, then algorithm, threshold, window µs, unit µs.
LOG_FULL = ['a', '1', '-1', '0', 'm', '0', 'sliding_log', '100', '3600000000', '0']
LOG_FRESH = ['a', '1', '-1', '0', 'm', '0', 'sliding_log', '10', '1000000', '0']
TOKEN_FULL = ['a', '1', '-1', '0', 'm', '0', 'token_bucket', '1', '3600000000', '3600000000']
TOKEN_FRESH = ['a', '1', '-1', '0', 'm', '0', 'token_bucket', '1000', '1000000', '1000']
# ARGV of the gateway's script: rate, capacity, now ('' for TIME), requested.
GATEWAY_FULL = ['1', '1', '', '5']
GATEWAY_FRESH = ['1000', '1000', '', '1']

VARIANTS = [
    ('rejected  log     composed', composed('sliding_log'), ['log'], LOG_FULL),
    ('rejected  log     single', single('sliding_log'), ['log'], LOG_FULL),
    ('rejected  log     single + PTTL', single_log_pttl(), ['log'], LOG_FULL),
    ('rejected  token   composed', composed('token_bucket'), ['token'], TOKEN_FULL),
    ('rejected  token   single', single('token_bucket'), ['token'], TOKEN_FULL),
    ('rejected  gateway', gateway(), ['gateway-a', 'gateway-b'], GATEWAY_FULL),
    ('admitted  log     composed', composed('sliding_log'), 1, LOG_FRESH),
    ('admitted  log     single', single('sliding_log'), 1, LOG_FRESH),
    ('admitted  token   composed', composed('token_bucket'), 1, TOKEN_FRESH),
    ('admitted  token   single', single('token_bucket'), 1, TOKEN_FRESH),
    ('admitted  gateway', gateway(), 2, GATEWAY_FRESH),
    ('TIME alone', "local t = redis.call('TIME')\nreturn { tonumber(t[1]) }", [], []),
]


def main():
    port = str(20000 + random.randint(0, 20000))
    server = subprocess.Popen(['redis-server', '--port', port, '--save', '', '--appendonly', 'no'],
                              stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)

        def cli(*args):
            return subprocess.run(['redis-cli', '-p', port, *args], capture_output=True, text=True).stdout.strip()

        # The hot keys, filled by the scripts themselves.
        log = composed('sliding_log')
        for i in range(100):
            cli('EVAL', log, '1', 'log', 'a', '1', '-1', '0', f'm{i}', '0', 'sliding_log', '100', '3600000000', '0')
        cli('EVAL', composed('token_bucket'), '1', 'token', *TOKEN_FULL)
        cli('EVAL', gateway(), '2', 'gateway-a', 'gateway-b', *GATEWAY_FULL)
        # An int is a number of fresh keys per call; a list names the hot keys.
        shas = [cli('SCRIPT', 'LOAD', looped(source, keys if isinstance(keys, int) else 0))
                for (_, source, keys, _) in VARIANTS]
        times = {name: [] for (name, _, _, _) in VARIANTS}
        for run in range(ROUNDS):
            for sha, (name, _, keys, args) in zip(shas, VARIANTS):
                keys = [] if isinstance(keys, int) else keys
                reply = cli('EVALSHA', sha, str(len(keys)), *keys, str(N), f'{run}:{name}', *args)
                times[name].append(int(reply) / N)
        print(f'redis {cli("INFO", "server").split("redis_version:")[1].split()[0]}, '
              f'{ROUNDS} rounds of {N} calls, load {os.getloadavg()[0]:.1f}')
        for name, values in times.items():
            print(f'{name:32s} {statistics.median(values):6.2f} µs  (min {min(values):.2f})')
    finally:
        server.kill()


if __name__ == '__main__':
    main()
