#!/usr/bin/env bash
# The HTTP figure: wrk against the sample app's /search endpoint without and with its
# @RateLimit, in one run, on one Redis. "Without" is the same jar with limiter.enabled=false;
# "with" gives the search limit a threshold no run reaches (1,000,000 per second), so every
# call is admitted and pays the full Redis decision; "rejecting" keeps the sample's limit.
# "callers-without" and "callers-with" spread the calls over CALLERS keys (callers.lua on
# /quotes, 5 per 10 s per symbol), so that most calls are admitted, each on a short log.
# Besides requests/s, each run reports the application's CPU time per request (user +
# system, from /proc), which other tenants of a shared machine disturb far less.
#
#   benchmarks/http.sh            about five minutes; needs wrk (apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd .. && pwd)
DURATION=${DURATION:-15s}
CONNECTIONS=${CONNECTIONS:-16}
RESULTS=${RESULTS:-results}
export CALLERS=${CALLERS:-100000}
mkdir -p "$RESULTS"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk"; exit 1; }

# JAR=... measures another build of the sample (such as one from an earlier commit).
if [ -z "${JAR:-}" ]; then
	(cd "$ROOT" && ./mvnw -q -pl sample-app -am package -DskipTests)
	JAR="$ROOT/sample-app/target/sample-app.jar"
fi
REDIS=$(command -v redis-server || true)
[ -n "$REDIS" ] || { echo "http.sh needs a redis-server on the PATH"; exit 1; }
REDIS_PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
"$REDIS" --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null &
REDIS_PID=$!
APP_PID=
trap 'kill $REDIS_PID 2>/dev/null || true; [ -z "$APP_PID" ] || kill $APP_PID 2>/dev/null || true' EXIT

run() {
	local label=$1 url=$2; shift 2
	local script=()
	if [ "$url" = callers ]; then url=/quotes; script=(-s callers.lua); fi
	local port
	port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
	java -Xmx512m -jar "$JAR" --server.port="$port" --spring.data.redis.host=127.0.0.1 \
		--spring.data.redis.port="$REDIS_PORT" --sample.demo-redis=false --logging.level.root=warn "$@" \
		> "$RESULTS/http-$label.log" 2>&1 &
	APP_PID=$!
	for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$port/x" && break; sleep 0.5; done
	# Warm up the JIT (C2 is still busy after a few seconds on 2 cores), then measure.
	wrk -t2 -c"$CONNECTIONS" -d${WARMUP:-20s} "${script[@]}" "http://127.0.0.1:$port$url" > /dev/null
	local cpu0 cpu1
	cpu0=$(awk '{print $14 + $15}' "/proc/$APP_PID/stat")
	wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "${script[@]}" "http://127.0.0.1:$port$url" > "$RESULTS/wrk-$label.txt"
	cpu1=$(awk '{print $14 + $15}' "/proc/$APP_PID/stat")
	local status requests rejected
	status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$url")
	requests=$(awk '/requests in/ {print $1}' "$RESULTS/wrk-$label.txt")
	rejected=$(awk '/Non-2xx/ {print $5}' "$RESULTS/wrk-$label.txt")
	kill "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=
	echo "$label: $(grep 'Requests/sec' "$RESULTS/wrk-$label.txt" | awk '{print $2}') req/s, p50 $(grep ' 50%' "$RESULTS/wrk-$label.txt" | awk '{print $2}'), p99 $(grep ' 99%' "$RESULTS/wrk-$label.txt" | awk '{print $2}'), $(python3 -c "print(round(($cpu1 - $cpu0) * 1e6 / $(getconf CLK_TCK) / $requests, 1))") cpu-us/req, ${rejected:-0} of $requests not 2xx, last status $status"
}

search="/search?q=redis"
{
	echo "# $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
	run without "$search" --limiter.enabled=false
	run with "$search" --limiter.limits.search.threshold=1000000 --limiter.limits.search.period=1s
	# The sample's own limit (3 per 10 s): nearly every call is a 429, answered by the
	# blocked-until cache without a Redis call.
	run rejecting "$search"
	run callers-without callers --limiter.enabled=false
	run callers-with callers
} | tee "$RESULTS/http-summary.txt"
python3 - "$RESULTS/http-summary.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rates = {k: float(v) for k, v in re.findall(r"^([\w-]+): ([\d.]+) req/s", text, re.M)}
cpu = {k: float(v) for k, v in re.findall(r"^([\w-]+): .*?([\d.]+) cpu-us/req", text, re.M)}
for run, base in (("with", "without"), ("rejecting", "without"), ("callers-with", "callers-without")):
    print(f"{run}/{base}: throughput {rates[run] / rates[base]:.2f}, cpu per request {cpu[run] / cpu[base]:.2f}")
PY
