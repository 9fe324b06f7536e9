#!/bin/bash
# Alternate before/after runs of the same wrk measurement as benchmarks/http.sh.
cd /work/main/benchmarks
REDIS_PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
redis-server --port $REDIS_PORT --bind 127.0.0.1 --save "" --appendonly no >/dev/null &
RP=$!
trap 'kill $RP' EXIT
sleep 1
one() { # side app label url args...
  local side=$1 app=$2 label=$3 url=$4; shift 4
  local root=/work/main; [ $side = before ] && root=/tmp/before
  local jar=$root/benchmarks/$app/target/$app.jar
  redis-cli -p $REDIS_PORT flushall >/dev/null
  local port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
  java -Xmx512m -jar $jar --server.port=$port --spring.data.redis.host=127.0.0.1 --spring.data.redis.port=$REDIS_PORT --logging.level.root=warn "$@" > /tmp/pair-app.log 2>&1 &
  local pid=$!
  for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$port/x" && break; sleep 0.5; done
  env CALLERS=10 PARAM=user PREFIX=u wrk -t2 -c16 -d20s -s callers.lua "http://127.0.0.1:$port$url" > /dev/null
  local cpu0=$(awk '{print $14 + $15}' /proc/$pid/stat)
  env CALLERS=10 PARAM=user PREFIX=u wrk -t2 -c16 -d15s -s callers.lua "http://127.0.0.1:$port$url" > /tmp/pair-wrk.txt
  local cpu1=$(awk '{print $14 + $15}' /proc/$pid/stat)
  local req=$(awk '/requests in/ {print $1}' /tmp/pair-wrk.txt)
  kill $pid; wait $pid 2>/dev/null
  echo "$label $side: $(grep 'Requests/sec' /tmp/pair-wrk.txt | awk '{print $2}') req/s, $(python3 -c "print(round(($cpu1 - $cpu0) * 1e6 / $(getconf CLK_TCK) / $req, 1))") cpu-us/req, load $(cut -d' ' -f1 /proc/loadavg)"
}
for round in 1 2; do
  for side in before after; do
    one $side webflux-app gateway-limiter-rejecting /limiter/plain --spring.profiles.active=gateway --bench.threshold=5 --bench.period-seconds=5 --bench.rate=1
    one $side webflux-app webflux-rejecting /hit
    one $side gateway-mvc-app gateway-mvc-limiter-admitted /limiter/plain --bench.threshold=1000000 --bench.period-seconds=1
  done
done
