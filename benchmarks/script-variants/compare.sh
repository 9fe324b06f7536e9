#!/usr/bin/env bash
# Redis server time of Limiter's script and of the variants proposed in ../README.md, on a
# key holding 100 entries so that every call is rejected (and, second, on fresh keys, so
# that every call is admitted). Needs redis-server, redis-cli and redis-benchmark on the PATH.
set -euo pipefail
cd "$(dirname "$0")"
PORT=${PORT:-6399}
redis-server --port "$PORT" --save "" --appendonly no >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER' EXIT
sleep 0.5
ORIGINAL=../../limiter-core/src/main/resources/META-INF/scripts/sliding_window_log.lua
SCG=$(unzip -p "$(find ~/.m2/repository/org/springframework/cloud/spring-cloud-gateway-server/4.3.5 -name '*.jar' | head -1)" \
	META-INF/scripts/request_rate_limiter.lua)
usec() {
	redis-cli -p "$PORT" info commandstats | grep evalsha | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/'
}
SHA=$(redis-cli -p "$PORT" SCRIPT LOAD "$(cat $ORIGINAL)")
for i in $(seq 1 100); do
	redis-cli -p "$PORT" EVALSHA "$SHA" 1 k 1 -1 0 "t$i" 100 3600000000 >/dev/null
done
for round in 1 2 3; do
	for script in "$ORIGINAL" reset_from_pttl.lua single_limit.lua; do
		SHA=$(redis-cli -p "$PORT" SCRIPT LOAD "$(cat "$script")")
		redis-cli -p "$PORT" CONFIG RESETSTAT >/dev/null
		redis-benchmark -p "$PORT" -n 40000 -c 4 -q EVALSHA "$SHA" 1 k 1 -1 0 tok 100 3600000000 >/dev/null 2>&1
		echo "rejected  $(basename "$script")  $(usec) us per call"
	done
	SHA=$(redis-cli -p "$PORT" SCRIPT LOAD "$SCG")
	redis-cli -p "$PORT" CONFIG RESETSTAT >/dev/null
	redis-benchmark -p "$PORT" -n 40000 -c 4 -q EVALSHA "$SHA" 2 a b 100 100 "" 1 >/dev/null 2>&1
	echo "gateway   request_rate_limiter.lua  $(usec) us per call"
done
for script in "$ORIGINAL" single_limit.lua; do
	SHA=$(redis-cli -p "$PORT" SCRIPT LOAD "$(cat "$script")")
	redis-cli -p "$PORT" CONFIG RESETSTAT >/dev/null
	redis-benchmark -p "$PORT" -n 40000 -r 100000 -c 4 -q EVALSHA "$SHA" 1 u:__rand_int__ 1 -1 0 tok 10 1000000 >/dev/null 2>&1
	echo "admitted  $(basename "$script")  $(usec) us per call"
done
