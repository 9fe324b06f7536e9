#!/usr/bin/env bash
# Builds the benchmarks and runs everything against a local redis-server started the way
# the tests start one (redis-server on the PATH, else the one packaged in embedded-redis),
# then writes results/summary.md and results/benchmarks.png.
#
#   benchmarks/run.sh            full run, about 15 minutes on 2 cores
#   QUICK=1 benchmarks/run.sh    a smoke run of a minute or two
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd .. && pwd)
RESULTS=${RESULTS:-results}
THREADS=${THREADS:-"1 8 32"}
mkdir -p "$RESULTS"

(cd "$ROOT" && ./mvnw -q -pl benchmarks package -DskipTests)
JAR=target/benchmarks.jar

if [[ -n "${QUICK:-}" ]]; then
	JMH_OPTS=${JMH_OPTS:-"-f 1 -wi 1 -w 1s -i 1 -r 1s"}
	SECONDS_PER_RUN=1
else
	JMH_OPTS=${JMH_OPTS:-"-f 1 -wi 1 -w 1s -i 2 -r 2s"}
	SECONDS_PER_RUN=3
fi

for t in $THREADS; do
	java -jar "$JAR" RateLimiterBenchmark $JMH_OPTS -t "$t" -prof gc \
		-rf json -rff "$RESULTS/jmh-t$t.json" ${JMH_EXTRA:-}
done

# The leaner client path proposed for RedisRateLimiter (a prototype in this module), 8 threads.
java -jar "$JAR" RateLimiterBenchmark $JMH_OPTS -t 8 -prof gc -p contender=limiter-lean \
	-rf json -rff "$RESULTS/jmh-lean-t8.json" ${JMH_EXTRA:-}

# Server time, round trips, bytes per key and the over-admission oracle (8 threads; hot key also 32).
java -cp "$JAR" dev.limiter.benchmarks.ServerCost "$RESULTS/server.json" "$SECONDS_PER_RUN" 8

# Machine facts for the README.
{
	echo "nproc: $(nproc)"
	echo "memory: $(free -h | awk '/Mem:/ {print $2}')"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
	echo "java: $(java -version 2>&1 | head -1)"
	echo "redis: $(python3 -c "import json;print(json.load(open('$RESULTS/server.json'))['redisVersion'])")"
} > "$RESULTS/machine.txt"

python3 plot.py "$RESULTS"
