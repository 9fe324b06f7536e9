package dev.limiter.benchmarks;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.Algorithm;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.redis.RedisKeys;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.test.MutableClock;

/**
 * What each of Limiter's algorithms costs in Redis, beside the token-bucket peers: server
 * microseconds per decision on three workloads (8 threads, one shared connection, as
 * {@link ServerCost} measures them), and bytes per key ({@code MEMORY USAGE}) at N = 10,
 * 1,000, 100,000 and 1,000,000 with the window full.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.AlgorithmCost <out.json> [seconds]}
 */
public final class AlgorithmCost {

	private static final int[] THRESHOLDS = { 10, 1_000, 100_000, 1_000_000 };

	private static final List<Contender> CONTENDERS = List.of(Contender.LIMITER, Contender.LIMITER_BUCKETS,
			Contender.LIMITER_TOKEN, Contender.LIMITER_CALENDAR, Contender.SCG, Contender.BUCKET4J);

	private AlgorithmCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/algorithms.json");
		double seconds = (args.length > 1) ? Double.parseDouble(args[1]) : 3;
		CommandCounter counter = new CommandCounter();
		Map<String, Object> report = new LinkedHashMap<>();
		try (BenchRedis redis = BenchRedis.start(counter)) {
			report.put("redisVersion", redis.server().version());
			List<Object> runs = new ArrayList<>();
			for (Workload workload : List.of(Workload.UNIFORM, Workload.REJECT_HEAVY, Workload.HOT_KEY)) {
				for (Contender contender : CONTENDERS) {
					runs.add(ServerCost.run(redis, counter, contender, workload, 8, seconds));
				}
			}
			report.put("runs", runs);
			Map<String, Object> memory = new LinkedHashMap<>();
			for (Algorithm algorithm : AlgorithmDescriptor.stored()) {
				Map<String, Long> bytes = new LinkedHashMap<>();
				for (int n : THRESHOLDS) {
					bytes.put(Integer.toString(n), bytesPerKey(redis, algorithm, n));
				}
				memory.put(algorithm.text(), bytes);
				System.out.println("memory " + algorithm.text() + " " + bytes);
			}
			report.put("memory", memory);
		}
		Files.createDirectories(out.toAbsolutePath().getParent());
		try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(out))) {
			writer.println(ServerCost.Json.write(report));
		}
		System.out.println("Wrote " + out);
	}

	/**
	 * Fill one key's window under a limit of N per hour, its calls spread over the hour
	 * in 61 steps so that every slice of a bucketed window holds a count, and measure it.
	 */
	private static long bytesPerKey(BenchRedis redis, Algorithm algorithm, int threshold) {
		redis.server().flushAll();
		MutableClock clock = MutableClock.startingNow();
		RateLimiter limiter = RedisRateLimiter.builder(redis.nativeCommands(), Duration.ofSeconds(60))
			.clock(clock)
			.build();
		Limit limit = Limit.of(threshold, Duration.ofHours(1)).withAlgorithm(algorithm);
		long left = threshold;
		for (int step = 0; step < 61 && left > 0; step++) {
			long permits = Math.max(1, Math.min(left, threshold / 61));
			if (step == 60) {
				permits = left;
			}
			if (!limiter.acquire("memory", permits, List.of(limit)).isAllowed()) {
				break;
			}
			left -= permits;
			if (algorithm != Algorithm.TOKEN_BUCKET) {
				clock.advance(Duration.ofSeconds(59));
			}
		}
		Object usage = redis.server()
			.command("MEMORY", "USAGE", RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, "memory", limit));
		return (usage instanceof Long value) ? value : 0;
	}

}
