package dev.limiter.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Engines;
import dev.limiter.redis.RedisRateLimiter;

/**
 * What each script call of a call costs, every call admitted, in one run on one
 * {@code redis-server} and one shared connection: an enforced limit alone; with a shadow
 * limit decided in the same script call and, as before round 4, in a second one; a charge
 * after the call that differs from the estimate; an outgoing call's turn counted again
 * from its response ({@code moveToNow}). Modes alternate; reports calls per second,
 * script calls and Redis server microseconds per call ({@code INFO commandstats}), and
 * the client's process CPU per call. Writes one JSON file.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.ScriptCallCost <out.json> [seconds] [threads] [rounds]}
 */
public final class ScriptCallCost {

	private static final int USERS = 1_000;

	private static final List<Limit> ENFORCED = List.of(Limit.of(1_000_000, Duration.ofMinutes(1)));

	private static final List<Limit> SHADOW = List
		.of(Limit.of("trial", 1_000_000, Duration.ofMinutes(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS));

	private static final List<Limit> CHARGED = List
		.of(Limit.of(1_000_000_000, Duration.ofMinutes(1)).withAlgorithm(Algorithm.TOKEN_BUCKET));

	private ScriptCallCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/script-calls.json");
		double seconds = (args.length > 1) ? Double.parseDouble(args[1]) : 5;
		int threads = (args.length > 2) ? Integer.parseInt(args[2]) : 8;
		int rounds = (args.length > 3) ? Integer.parseInt(args[3]) : 3;
		Map<String, Object> report;
		try (BenchRedis redis = BenchRedis.start(null)) {
			report = ServerCost.report(redis, threads, seconds);
			AbstractRateLimiter engine = Engines
				.of(RedisRateLimiter.builder(redis.nativeCommands(), Duration.ofSeconds(10)).build());
			Map<String, Predicate<String>> modes = modes(engine);
			for (Map.Entry<String, Predicate<String>> mode : modes.entrySet()) {
				run(redis, mode.getKey(), mode.getValue(), threads, 1);
			}
			List<Object> runs = new ArrayList<>();
			for (int round = 0; round < rounds; round++) {
				for (Map.Entry<String, Predicate<String>> mode : modes.entrySet()) {
					runs.add(run(redis, mode.getKey(), mode.getValue(), threads, seconds));
				}
			}
			report.put("runs", runs);
		}
		ServerCost.write(out, report);
	}

	/** Each mode: a call for a caller key, admitted or not. */
	private static Map<String, Predicate<String>> modes(AbstractRateLimiter engine) {
		Map<String, Predicate<String>> modes = new LinkedHashMap<>();
		modes.put("enforced alone", (key) -> engine.acquire(CheckedCall.of(key, 1, ENFORCED)).isAllowed());
		modes.put("enforced and shadow, one script call",
				(key) -> engine.acquire(CheckedCall.of(key, 1, ENFORCED), CheckedCall.of("s:" + key, 1, SHADOW))
					.watched()
					.isAllowed());
		modes.put("enforced and shadow, two script calls",
				(key) -> engine.acquire(CheckedCall.of(key, 1, ENFORCED)).isAllowed()
						&& engine.acquire(CheckedCall.of("s:" + key, 1, SHADOW)).isAllowed());
		modes.put("token bucket alone", (key) -> engine.acquire(CheckedCall.of(key, 1, CHARGED)).isAllowed());
		modes.put("token bucket, charged after the call", (key) -> {
			Decision decision = engine.acquire(CheckedCall.of(key, 1, CHARGED));
			return engine.charge(decision, 41).isAllowed();
		});
		modes.put("outgoing turn, moved to its response", (key) -> {
			Decision turn = engine.acquire(CheckedCall.of(key, 1, ENFORCED));
			return engine.moveToNow(turn);
		});
		return modes;
	}

	private static Map<String, Object> run(BenchRedis redis, String mode, Predicate<String> call, int threads,
			double seconds) throws InterruptedException {
		redis.server().flushAll();
		redis.server().command("CONFIG", "RESETSTAT");
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		LongAdder calls = new LongAdder();
		LongAdder admitted = new LongAdder();
		long end = System.nanoTime() + (long) (seconds * 1e9);
		long cpu = os.getProcessCpuTime();
		long start = System.nanoTime();
		Thread[] workers = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			workers[t] = new Thread(() -> {
				while (System.nanoTime() < end) {
					boolean allowed = call.test("u:" + ThreadLocalRandom.current().nextInt(USERS));
					calls.increment();
					admitted.add(allowed ? 1 : 0);
				}
			});
			workers[t].start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		double wall = (System.nanoTime() - start) / 1e9;
		double cpuMicros = (os.getProcessCpuTime() - cpu) / 1e3 / calls.sum();
		Map<String, double[]> stats = ServerCost.commandStats(redis);
		double scriptCalls = 0;
		double redisMicros = 0;
		for (String command : List.of("evalsha", "eval")) {
			double[] stat = stats.getOrDefault(command, new double[2]);
			scriptCalls += stat[0];
			redisMicros += stat[0] * stat[1];
		}
		Map<String, Object> run = new LinkedHashMap<>();
		run.put("mode", mode);
		run.put("calls", calls.sum());
		run.put("admitted", admitted.sum());
		run.put("callsPerSecond", calls.sum() / wall);
		run.put("scriptCallsPerCall", scriptCalls / calls.sum());
		run.put("redisMicrosPerCall", redisMicros / calls.sum());
		run.put("clientCpuMicrosPerCall", cpuMicros);
		System.out.println(run);
		return run;
	}

}
