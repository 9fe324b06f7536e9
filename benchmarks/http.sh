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
# PEER=1 adds the peer runs: the peer app (benchmarks/peer-app, Spring Boot 3.5) serves the
# same kind of endpoint unlimited (/plain), limited by Limiter (/limiter) and by
# bucket4j-spring-boot-starter's servlet filter (/bucket4j), both per caller on this Redis
# through Lettuce. "admitted" gives both limits 1,000,000 per second, "rejecting" 100 per
# 60 s (nearly every call a 429). Each pair runs back to back, PEER_ROUNDS times (2), its
# order flipped every round; Redis is flushed before each peer run. They go to
# results/http-peer-summary.txt with the ratios limiter/bucket4j. PEER=only skips the
# sample's runs.
#
# APPS=1 adds the applications' runs (benchmarks/mvc-app and benchmarks/webflux-app, Spring
# Boot 4.1, no Spring Security), each over USERS users (10, by callers.lua): /hit limited
# 5 per 4 s by key = "#user", on Spring MVC and on WebFlux, without (limiter.enabled=false),
# admitted (1,000,000 per second) and rejecting, beside /floor, the yardstick of an admitted
# call (a StringRedisTemplate running a DefaultRedisScript on a sorted set), and /plain unlimited,
# then limited by a rule by path (limiter.web.rules) with hit's numbers, admitted and rejecting; then the WebFlux app as a Spring Cloud Gateway (profile "gateway") whose
# routes forward to an unlimited handler: /scg by the gateway's RedisRateLimiter, /limiter by
# limiterRateLimiter's token bucket (the same promise), /limiter-log by its sliding log,
# admitted (1,000,000 per second) and rejecting (5 per 5 s), Redis flushed before each;
# then benchmarks/gateway-mvc-app, a Gateway Server MVC whose /bucket4j route is limited by
# the gateway's Bucket4j filter function and /limiter by Limiter's token bucket, the same
# numbers. Each line ends with the bytes the application allocated per request (its live
# threads', GET /allocated). They go to results/http-apps-summary.txt with their ratios.
# APPS=only skips the rest.
#
# ONLY=<regex> runs only the runs whose label matches it whole, such as
# ONLY='webflux-(without|rejecting)'; STACK_JAR=<jar> measures another build of the app of
# the stack that runs (one at a time, with ONLY), such as one from an earlier commit, and
# GATEWAY_MVC_JAR=<jar> of the Gateway Server MVC app.
#
#   benchmarks/http.sh            about five minutes; needs wrk (apt-get install wrk)
#   APPS=only benchmarks/http.sh  about fifteen minutes
#   PEER=1 benchmarks/http.sh     about twelve minutes; PEER=only about seven
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd .. && pwd)
DURATION=${DURATION:-15s}
CONNECTIONS=${CONNECTIONS:-16}
RESULTS=${RESULTS:-results}
export CALLERS=${CALLERS:-100000}
export USERS=${USERS:-10}
PEER=${PEER:-}
[ "$PEER" != 0 ] || PEER=
APPS=${APPS:-}
[ "$APPS" != 0 ] || APPS=
# The sample's runs, unless PEER=only or APPS=only.
SAMPLE=1
if [ "$PEER" = only ] || [ "$APPS" = only ]; then SAMPLE=; fi
PEER_ROUNDS=${PEER_ROUNDS:-2}
mkdir -p "$RESULTS"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk"; exit 1; }

# JAR=... measures another build of the sample (such as one from an earlier commit).
if [ -n "$SAMPLE" ] && [ -z "${JAR:-}" ]; then
	(cd "$ROOT" && ./mvnw -q -pl sample-app -am package -DskipTests)
	JAR="$ROOT/sample-app/target/sample-app.jar"
fi
if [ -n "$APPS" ]; then
	(cd "$ROOT" && ./mvnw -q -pl benchmarks/mvc-app,benchmarks/webflux-app,benchmarks/gateway-mvc-app -am package -DskipTests)
fi
# The peer app is built on the Boot 3.5 line, which the default build does not touch.
PEER_JAR=${PEER_JAR:-$ROOT/benchmarks/peer-app/target/peer-app.jar}
if [ -n "$PEER" ] && [ ! -f "$PEER_JAR" ]; then
	# clean both times: the compiler does not notice that the Spring jars changed, so classes
	# compiled against one line would stay in the other's jars.
	echo "PEER=$PEER needs $PEER_JAR (or PEER_JAR=...); build it on the Boot 3.5 line, then"
	echo "compile the modules it needs on the default line again:"
	echo "  ./mvnw -Pboot35 -pl benchmarks/peer-app -am clean package -DskipTests"
	echo "  ./mvnw -pl limiter-test-support,limiter-core,limiter-spring-boot-starter clean install -DskipTests"
	exit 1
fi
REDIS=$(command -v redis-server || true)
[ -n "$REDIS" ] || { echo "http.sh needs a redis-server on the PATH"; exit 1; }
REDIS_PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
"$REDIS" --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no >/dev/null &
REDIS_PID=$!
APP_PID=
trap 'kill $REDIS_PID 2>/dev/null || true; [ -z "$APP_PID" ] || kill $APP_PID 2>/dev/null || true' EXIT
APP_ARGS=(--sample.demo-redis=false)

run() {
	local label=$1 url=$2; shift 2
	if [ -n "${ONLY:-}" ] && ! [[ $label =~ ^($ONLY)$ ]]; then return; fi
	local script=() spread=(env)
	if [ "$url" = callers ]; then url=/quotes; script=(-s callers.lua); fi
	# users:/path spreads the calls over USERS values of the "user" parameter (callers.lua).
	if [ "${url#users:}" != "$url" ]; then
		url=${url#users:}; script=(-s callers.lua); spread=(env CALLERS="$USERS" PARAM=user PREFIX=u)
	fi
	local port
	port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
	java -Xmx512m -jar "$JAR" --server.port="$port" --spring.data.redis.host=127.0.0.1 \
		--spring.data.redis.port="$REDIS_PORT" "${APP_ARGS[@]}" --logging.level.root=warn "$@" \
		> "$RESULTS/http-$label.log" 2>&1 &
	APP_PID=$!
	for _ in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$port/x" && break; sleep 0.5; done
	# Warm up the JIT (C2 is still busy after a few seconds on 2 cores), then measure.
	"${spread[@]}" wrk -t2 -c"$CONNECTIONS" -d${WARMUP:-20s} "${script[@]}" "http://127.0.0.1:$port$url" > /dev/null
	local cpu0 cpu1 alloc0 alloc1 alloc=
	alloc0=$(allocated "$port")
	cpu0=$(awk '{print $14 + $15}' "/proc/$APP_PID/stat")
	"${spread[@]}" wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "${script[@]}" "http://127.0.0.1:$port$url" > "$RESULTS/wrk-$label.txt"
	cpu1=$(awk '{print $14 + $15}' "/proc/$APP_PID/stat")
	alloc1=$(allocated "$port")
	local status requests rejected
	status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$url")
	requests=$(awk '/requests in/ {print $1}' "$RESULTS/wrk-$label.txt")
	rejected=$(awk '/Non-2xx/ {print $5}' "$RESULTS/wrk-$label.txt")
	kill "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=
	if [ -n "$alloc0" ] && [ -n "$alloc1" ]; then alloc=", $(( (alloc1 - alloc0) / requests )) alloc-B/req"; fi
	echo "$label: $(grep 'Requests/sec' "$RESULTS/wrk-$label.txt" | awk '{print $2}') req/s, p50 $(grep ' 50%' "$RESULTS/wrk-$label.txt" | awk '{print $2}'), p99 $(grep ' 99%' "$RESULTS/wrk-$label.txt" | awk '{print $2}'), $(python3 -c "print(round(($cpu1 - $cpu0) * 1e6 / $(getconf CLK_TCK) / $requests, 1))") cpu-us/req, ${rejected:-0} of $requests not 2xx, last status $status$alloc"
}

# The bytes the application's live threads have allocated so far, where it tells
# (GET /allocated, the benchmark apps only), else nothing.
allocated() {
	local bytes
	bytes=$(curl -sf "http://127.0.0.1:$1/allocated" 2>/dev/null) || return 0
	case $bytes in ''|*[!0-9]*) ;; *) echo "$bytes" ;; esac
}

# Every peer and gateway run starts from an empty Redis.
flush_redis() {
	python3 - "$REDIS_PORT" <<'PY'
import socket, sys
with socket.create_connection(("127.0.0.1", int(sys.argv[1]))) as s:
    s.sendall(b"*1\r\n$8\r\nFLUSHALL\r\n")
    assert s.recv(64).startswith(b"+OK"), "FLUSHALL failed"
PY
}

# The applications' runs (APPS=1 or only).
if [ -n "$APPS" ]; then
SAMPLE_JAR=${JAR:-}
APP_ARGS=()
{
	echo "# apps $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $USERS users"
	for stack in mvc webflux; do
		JAR="${STACK_JAR:-$ROOT/benchmarks/$stack-app/target/$stack-app.jar}"
		run "$stack-without" users:/hit --limiter.enabled=false
		flush_redis
		run "$stack-admitted" users:/hit --limiter.limits.hit.threshold=1000000 --limiter.limits.hit.period=1s
		flush_redis
		# the yardstick: a DefaultRedisScript on a sorted set, every call admitted
		run "$stack-floor" users:/floor
		flush_redis
		run "$stack-rejecting" users:/hit
		# the same kind of handler unlimited, then limited by a rule by path with the numbers
		# of hit (a rule names limits of limiter.limits), keyed by the same parameter
		if [ $stack = mvc ]; then user_key="#request.getParameter('user')"
		else user_key="#request.getRequest().getQueryParams().getFirst('user')"; fi
		rule=(--limiter.web.rules[0].paths[0]=/plain --limiter.web.rules[0].limits[0]=hit
			"--limiter.web.rules[0].key=$user_key")
		run "$stack-plain" users:/plain
		flush_redis
		run "$stack-rule-admitted" users:/plain "${rule[@]}" --limiter.limits.hit.threshold=1000000 \
			--limiter.limits.hit.period=1s
		flush_redis
		run "$stack-rule-rejecting" users:/plain "${rule[@]}" --limiter.limits.hit.threshold=5 \
			--limiter.limits.hit.period=4s
	done
	for kind in admitted rejecting; do
		if [ $kind = admitted ]; then numbers=(--bench.threshold=1000000 --bench.period-seconds=1 --bench.rate=1000000)
		else numbers=(--bench.threshold=5 --bench.period-seconds=5 --bench.rate=1); fi
		for route in scg limiter limiter-log; do
			flush_redis
			run "gateway-$route-$kind" "users:/$route/plain" --spring.profiles.active=gateway "${numbers[@]}"
		done
	done
	JAR="${GATEWAY_MVC_JAR:-$ROOT/benchmarks/gateway-mvc-app/target/gateway-mvc-app.jar}"
	for kind in admitted rejecting; do
		if [ $kind = admitted ]; then numbers=(--bench.threshold=1000000 --bench.period-seconds=1)
		else numbers=(--bench.threshold=5 --bench.period-seconds=5); fi
		for route in bucket4j limiter; do
			flush_redis
			run "gateway-mvc-$route-$kind" "users:/$route/plain" "${numbers[@]}"
		done
	done
	echo "# apps done $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$RESULTS/http-apps-summary.txt"
python3 - "$RESULTS/http-apps-summary.txt" <<'PY' | tee -a "$RESULTS/http-apps-summary.txt"
import re, sys
text = open(sys.argv[1]).read()
runs = {k: (float(r), float(c), int(b), int(t)) for k, r, c, b, t in re.findall(
    r"^([\w-]+): ([\d.]+) req/s, .*?([\d.]+) cpu-us/req, (\d+) of (\d+) not 2xx", text, re.M)}
allocs = {k: int(b) for k, b in re.findall(r"^([\w-]+): .*, (\d+) alloc-B/req$", text, re.M)}
pairs = [("mvc-rejecting", "mvc-without", 1.0), ("webflux-rejecting", "webflux-without", 1.0),
         ("mvc-admitted", "mvc-without", None), ("webflux-admitted", "webflux-without", None),
         ("mvc-admitted", "mvc-floor", 1.0), ("webflux-admitted", "webflux-floor", 1.0),
         ("mvc-rule-rejecting", "mvc-plain", 1.0), ("webflux-rule-rejecting", "webflux-plain", 1.0),
         ("mvc-rule-admitted", "mvc-admitted", None), ("webflux-rule-admitted", "webflux-admitted", None),
         ("gateway-limiter-admitted", "gateway-scg-admitted", 1.0),
         ("gateway-limiter-rejecting", "gateway-scg-rejecting", 1.0),
         ("gateway-limiter-log-admitted", "gateway-scg-admitted", None),
         ("gateway-limiter-log-rejecting", "gateway-scg-rejecting", None),
         ("gateway-mvc-limiter-admitted", "gateway-mvc-bucket4j-admitted", 1.0),
         ("gateway-mvc-limiter-rejecting", "gateway-mvc-bucket4j-rejecting", 1.5)]
for run, base, target in pairs:
    if run in runs and base in runs:
        ratio = runs[run][0] / runs[base][0]
        verdict = "" if target is None else f"; target throughput >= {target:g}: {'met' if ratio >= target else 'missed'}"
        memory = ""
        if run in allocs and base in allocs and allocs[base] > 0:
            memory = f", allocation per request {allocs[run] / allocs[base]:.2f} ({allocs[run]} vs {allocs[base]} B)"
        print(f"{run}/{base}: throughput {ratio:.2f}, cpu per request {runs[run][1] / runs[base][1]:.2f}{memory}{verdict}")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = [(run, base) for run, base, _ in pairs if run in runs and base in runs]
    fig, ax = plt.subplots(figsize=(13, 4.4))
    x = range(len(shown))
    ax.bar([i - 0.2 for i in x], [runs[r][0] / runs[b][0] for r, b in shown], 0.4, label="requests/s")
    ax.bar([i + 0.2 for i in x], [runs[r][1] / runs[b][1] for r, b in shown], 0.4, label="CPU per request")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"{r}\n/ {b}".replace("gateway-", "") for r, b in shown], fontsize=7)
    ax.set_ylabel("ratio, one run")
    ax.set_title("http.sh APPS: Limiter against its baseline or peer")
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[1].replace("http-apps-summary.txt", "http-apps.png"), dpi=110)
except ImportError:
    pass
for label, (rate, cpu, bad, total) in sorted(runs.items()):
    if label.endswith(("-without", "-admitted", "-floor", "-plain")):
        print(f"check {label}: {bad} of {total} not 2xx (want 0): {'ok' if bad == 0 else 'FAILED'}")
    else:
        share = bad / total if total else 0
        print(f"check {label}: {100 * share:.2f}% not 2xx (want >= 99%): {'ok' if share >= 0.99 else 'FAILED'}")
PY
JAR=$SAMPLE_JAR
APP_ARGS=(--sample.demo-redis=false)
fi

# The sample's runs; PEER=only and APPS=only skip them.
if [ -n "$SAMPLE" ]; then
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
fi
[ -n "$PEER" ] || exit 0

# Every peer run starts from an empty Redis (flush_redis): Bucket4j keeps one bucket per
# caller whatever its capacity (the admitted run's bucket would admit the next rejecting
# run), and Limiter's keys name their limit.
peer_run() {
	local label=$1 path=$2 threshold=$3 seconds=$4
	flush_redis
	run "$label" "$path?q=redis" --peer.threshold="$threshold" --peer.period-seconds="$seconds"
}
JAR=$PEER_JAR
APP_ARGS=()
{
	echo "# peer $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $(basename "$PEER_JAR") (Spring Boot 3.5)"
	peer_run peer-plain /plain 1000000 1
	for round in $(seq 1 "$PEER_ROUNDS"); do
		# Alternate which limiter goes first, so that a load that rises or falls during the
		# run favours neither.
		if [ $((round % 2)) = 1 ]; then pair=(limiter bucket4j); else pair=(bucket4j limiter); fi
		for limiter in "${pair[@]}"; do
			peer_run "peer-$limiter-admitted-$round" "/$limiter" 1000000 1
		done
		for limiter in "${pair[1]}" "${pair[0]}"; do
			peer_run "peer-$limiter-rejecting-$round" "/$limiter" 100 60
		done
	done
	echo "# peer runs done $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$RESULTS/http-peer-summary.txt"
python3 - "$RESULTS" <<'PY' | tee -a "$RESULTS/http-peer-summary.txt"
import glob, os, re, sys
results = sys.argv[1]
text = open(os.path.join(results, "http-peer-summary.txt")).read()
runs = {}
for label, rate, cpu, bad, total in re.findall(
        r"^([\w-]+): ([\d.]+) req/s, .*?([\d.]+) cpu-us/req, (\d+) of (\d+) not 2xx", text, re.M):
    runs[label] = {"rate": float(rate), "cpu": float(cpu), "bad": int(bad), "total": int(total)}

def mean(values):
    return sum(values) / len(values)

targets = {"admitted": 1.0, "rejecting": 1.5}
for kind, target in targets.items():
    rounds = sorted(int(m.group(1)) for label in runs
                    for m in [re.fullmatch(rf"peer-limiter-{kind}-(\d+)", label)] if m
                    and f"peer-bucket4j-{kind}-{m.group(1)}" in runs)
    if not rounds:
        print(f"limiter/bucket4j {kind}: no complete pair")
        continue
    limiter = [runs[f"peer-limiter-{kind}-{r}"] for r in rounds]
    bucket4j = [runs[f"peer-bucket4j-{kind}-{r}"] for r in rounds]
    throughput = mean([l["rate"] for l in limiter]) / mean([b["rate"] for b in bucket4j])
    cpu = mean([l["cpu"] for l in limiter]) / mean([b["cpu"] for b in bucket4j])
    per_round = ", ".join(f"{l['rate'] / b['rate']:.2f}" for l, b in zip(limiter, bucket4j))
    cpu_round = ", ".join(f"{l['cpu'] / b['cpu']:.2f}" for l, b in zip(limiter, bucket4j))
    verdict = "met" if throughput >= target else "missed"
    print(f"limiter/bucket4j {kind}: throughput {throughput:.2f} (per round {per_round}), "
          f"cpu per request {cpu:.2f} (per round {cpu_round}); target throughput >= {target:g}: {verdict}")
if "peer-plain" in runs:
    plain = runs["peer-plain"]
    for name in ("limiter", "bucket4j"):
        for kind in targets:
            mine = [v for k, v in runs.items() if re.fullmatch(rf"peer-{name}-{kind}-\d+", k)]
            if mine:
                print(f"{name}-{kind}/plain: throughput {mean([v['rate'] for v in mine]) / plain['rate']:.2f}, "
                      f"cpu per request {mean([v['cpu'] for v in mine]) / plain['cpu']:.2f}")

# The comparison holds only if admitted runs were all admitted, rejecting runs nearly all
# rejected, and Limiter never fell back to its failure policy (fail-open admits without Redis).
for label, run in sorted(runs.items()):
    if label == "peer-plain" or "-admitted-" in label:
        ok = run["bad"] == 0
        print(f"check {label}: {run['bad']} of {run['total']} not 2xx (want 0): {'ok' if ok else 'FAILED'}")
    elif "-rejecting-" in label:
        share = run["bad"] / run["total"] if run["total"] else 0
        ok = share >= 0.99
        print(f"check {label}: {100 * share:.2f}% not 2xx, wrk's \"Non-2xx or 3xx responses\" (want >= 99%): "
              f"{'ok' if ok else 'FAILED'}")
for log in sorted(glob.glob(os.path.join(results, "http-peer-limiter-*.log"))):
    outages = open(log, errors="replace").read().count("Rate-limit store unavailable")
    label = os.path.basename(log)[len("http-"):-len(".log")]
    print(f"check {label}: Limiter's store unavailable {outages} times (want 0): {'ok' if outages == 0 else 'FAILED'}")
PY
