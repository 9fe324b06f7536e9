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

import dev.limiter.Algorithm;
import dev.limiter.Limit;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Engines;
import dev.limiter.redis.RedisRateLimiter;

/**
 * The cost of a call with an enforced and a shadow limit, every call admitted: decided in
 * one script call (the enforced limits' script asks the shadow ones too) against two (the
 * enforced limits, then the shadow ones under their own key), alternating in one run on
 * one {@code redis-server} and one shared connection. Reports calls per second, script
 * calls and Redis server microseconds per call ({@code INFO commandstats}), and the
 * client's process CPU per call. Writes one JSON file.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.ShadowCost <out.json> [seconds] [threads] [rounds]}
 */
public final class ShadowCost {

	private static final int USERS = 1_000;

	private ShadowCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/shadow.json");
		double seconds = (args.length > 1) ? Double.parseDouble(args[1]) : 5;
		int threads = (args.length > 2) ? Integer.parseInt(args[2]) : 8;
		int rounds = (args.length > 3) ? Integer.parseInt(args[3]) : 3;
		Map<String, Object> report;
		try (BenchRedis redis = BenchRedis.start(null)) {
			report = ServerCost.report(redis, threads, seconds);
			AbstractRateLimiter engine = Engines
				.of(RedisRateLimiter.builder(redis.nativeCommands(), Duration.ofSeconds(10)).build());
			List<Limit> enforced = List.of(Limit.of(1_000_000, Duration.ofMinutes(1)));
			List<Limit> shadow = List
				.of(Limit.of("trial", 1_000_000, Duration.ofMinutes(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS));
			run(redis, engine, enforced, shadow, true, threads, 1);
			run(redis, engine, enforced, shadow, false, threads, 1);
			List<Object> runs = new ArrayList<>();
			for (int round = 0; round < rounds; round++) {
				runs.add(run(redis, engine, enforced, shadow, true, threads, seconds));
				runs.add(run(redis, engine, enforced, shadow, false, threads, seconds));
			}
			report.put("runs", runs);
		}
		ServerCost.write(out, report);
	}

	private static Map<String, Object> run(BenchRedis redis, AbstractRateLimiter engine, List<Limit> enforced,
			List<Limit> shadow, boolean folded, int threads, double seconds) throws InterruptedException {
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
					String key = "u:" + ThreadLocalRandom.current().nextInt(USERS);
					CheckedCall call = CheckedCall.of(key, 1, enforced);
					CheckedCall watched = CheckedCall.of("s:" + key, 1, shadow);
					boolean allowed;
					if (folded) {
						allowed = engine.acquire(call, watched).watched().isAllowed();
					}
					else {
						allowed = engine.acquire(call).isAllowed() && engine.acquire(watched).isAllowed();
					}
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
		double[] evalsha = stats.getOrDefault("evalsha", new double[2]);
		Map<String, Object> run = new LinkedHashMap<>();
		run.put("mode", folded ? "one script call" : "two script calls");
		run.put("calls", calls.sum());
		run.put("admitted", admitted.sum());
		run.put("callsPerSecond", calls.sum() / wall);
		run.put("scriptCallsPerCall", evalsha[0] / calls.sum());
		run.put("redisMicrosPerCall", evalsha[0] * evalsha[1] / calls.sum());
		run.put("clientCpuMicrosPerCall", cpuMicros);
		System.out.println(run);
		return run;
	}

}
