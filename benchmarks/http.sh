#!/usr/bin/env bash
# The HTTP figure: wrk against the sample app's /search endpoint without and with its
# @RateLimit, in one run, on one Redis. "Without" is the same jar with limiter.enabled=false;
# "with" gives the search limit a threshold no run reaches (1,000,000 per second), so every
# call is admitted and pays the full Redis decision; "rejecting" keeps the sample's limit.
#
#   benchmarks/http.sh            about a minute; needs wrk (apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd .. && pwd)
DURATION=${DURATION:-15s}
CONNECTIONS=${CONNECTIONS:-16}
RESULTS=${RESULTS:-results}
mkdir -p "$RESULTS"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk"; exit 1; }

(cd "$ROOT" && ./mvnw -q -pl sample-app -am package -DskipTests)
JAR="$ROOT/sample-app/target/sample-app.jar"
REDIS=$(command -v redis-server || true)
[ -n "$REDIS" ] || { echo "http.sh needs a redis-server on the PATH"; exit 1; }
REDIS_PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
"$REDIS" --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null &
REDIS_PID=$!
APP_PID=
trap 'kill $REDIS_PID 2>/dev/null || true; [ -z "$APP_PID" ] || kill $APP_PID 2>/dev/null || true' EXIT

run() {
	local label=$1; shift
	local port
	port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
	java -Xmx512m -jar "$JAR" --server.port="$port" --spring.data.redis.host=127.0.0.1 \
		--spring.data.redis.port="$REDIS_PORT" --sample.demo-redis=false --logging.level.root=warn "$@" \
		> "$RESULTS/http-$label.log" 2>&1 &
	APP_PID=$!
	for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$port/x" && break; sleep 0.5; done
	# Warm up the JIT (C2 is still busy after a few seconds on 2 cores), then measure.
	wrk -t2 -c"$CONNECTIONS" -d${WARMUP:-20s} "http://127.0.0.1:$port/search?q=warm" > /dev/null
	wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "http://127.0.0.1:$port/search?q=redis" > "$RESULTS/wrk-$label.txt"
	local status
	status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/search?q=redis")
	kill "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=
	echo "$label: $(grep 'Requests/sec' "$RESULTS/wrk-$label.txt" | awk '{print $2}') req/s, p50 $(grep ' 50%' "$RESULTS/wrk-$label.txt" | awk '{print $2}'), p99 $(grep ' 99%' "$RESULTS/wrk-$label.txt" | awk '{print $2}'), last status $status"
}

{
	run without --limiter.enabled=false
	run with --limiter.limits.search.threshold=1000000 --limiter.limits.search.period=1s
	# The sample's own limit (3 per 10 s): nearly every call is a 429, answered by the
	# blocked-until cache without a Redis call.
	run rejecting
} | tee "$RESULTS/http-summary.txt"
python3 - "$RESULTS/http-summary.txt" <<'PY'
import re, sys
rates = dict(re.findall(r"^(\w+): ([\d.]+) req/s", open(sys.argv[1]).read(), re.M))
print(f"with/without throughput ratio: {float(rates['with']) / float(rates['without']):.2f}")
print(f"rejecting/without throughput ratio: {float(rates['rejecting']) / float(rates['without']):.2f}")
PY
