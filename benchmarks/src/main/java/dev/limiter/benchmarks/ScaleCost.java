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

import dev.limiter.Limit;

/**
 * Measures how Redis time per decision and the application's heap behave as the number of
 * live keys grows (10³ to 10⁷ by default): each key holds the state one real call left
 * (copied server-side from a probe key, so that filling Redis takes seconds, not hours),
 * then threads decide on keys drawn uniformly from them. Two limits per contender: one
 * the stored call already fills (every decision a rejection, nothing written) and one far
 * from full (every decision admitted and recorded). The heap is the application's, after
 * a full collection, with the rejection cache over the rejecting keys. Writes one JSON
 * file.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.ScaleCost <out.json> [seconds] [threads] [largest]}
 */
public final class ScaleCost {

	private static final List<Contender> CONTENDERS = List.of(Contender.LIMITER, Contender.LIMITER_BUCKETS,
			Contender.LIMITER_TOKEN, Contender.SCG);

	private static final String PROBE = "probe";

	private static final int CHUNK = 20_000;

	private ScaleCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/scale.json");
		double seconds = (args.length > 1) ? Double.parseDouble(args[1]) : 3;
		int threads = (args.length > 2) ? Integer.parseInt(args[2]) : 8;
		long largest = (args.length > 3) ? Long.parseLong(args[3]) : 10_000_000;
		CommandCounter counter = new CommandCounter();
		Map<String, Object> report;
		try (BenchRedis redis = BenchRedis.start(counter)) {
			report = ServerCost.report(redis, threads, seconds);
			List<Object> runs = new ArrayList<>();
			for (long keys = 1_000; keys <= largest; keys *= 10) {
				for (Contender contender : CONTENDERS) {
					for (boolean full : new boolean[] { true, false }) {
						runs.add(run(redis, counter, contender, keys, full, threads, seconds));
					}
				}
				runs.add(heap(redis, keys, threads, seconds));
			}
			report.put("runs", runs);
		}
		ServerCost.write(out, report);
	}

	/**
	 * One call per hour fills the first limit; the second admits every call, and is long
	 * enough that a token bucket's state of one call lives through the run too.
	 */
	private static Limit limit(boolean full) {
		return full ? Limit.of(1, Duration.ofHours(1)) : Limit.of(1_000_000, Duration.ofDays(1_000));
	}

	private static Map<String, Object> run(BenchRedis redis, CommandCounter counter, Contender contender, long keys,
			boolean full, int threads, double seconds) throws InterruptedException {
		Contender.Subject subject = fill(redis, contender, limit(full), keys);
		drive(subject, keys, threads, 1.0);
		redis.server().command("CONFIG", "RESETSTAT");
		counter.reset();
		long[] result = drive(subject, keys, threads, seconds);
		double[] cost = ServerCost.serverCost(counter.snapshot(), ServerCost.commandStats(redis));
		double serverMicros = cost[0];
		long roundTrips = (long) cost[1];
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("contender", contender.id());
		row.put("keys", keys);
		row.put("limit", full ? "full" : "open");
		row.put("decisions", result[0]);
		row.put("admitted", result[1]);
		row.put("decisionsPerSecond", result[0] / seconds);
		row.put("redisCallsPerDecision", (double) roundTrips / result[0]);
		row.put("serverMicrosPerDecision", serverMicros / result[0]);
		long memory = usedMemory(redis);
		row.put("usedMemoryBytes", memory);
		System.out.printf("%-15s keys=%-9d %-4s %9.0f dec/s  server us/dec %.2f  admitted %d  redis %d MB%n",
				contender.id(), keys, full ? "full" : "open", result[0] / seconds, serverMicros / result[0], result[1],
				memory >> 20);
		return row;
	}

	/**
	 * The application's heap after a full collection, with the rejection cache in front
	 * of the limiter, once every key has been rejected: what the application keeps per
	 * live key.
	 */
	private static Map<String, Object> heap(BenchRedis redis, long keys, int threads, double seconds)
			throws InterruptedException {
		long before = usedHeap();
		Contender.Subject subject = fill(redis, Contender.LIMITER_CACHED, limit(true), keys);
		long[] result = drive(subject, keys, threads, seconds);
		long after = usedHeap();
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("contender", Contender.LIMITER_CACHED.id());
		row.put("keys", keys);
		row.put("limit", "full");
		row.put("decisions", result[0]);
		row.put("heapGrowthBytes", after - before);
		System.out.printf("%-15s keys=%-9d heap after %d rejections: %+d KB%n", Contender.LIMITER_CACHED.id(), keys,
				result[0], (after - before) >> 10);
		return row;
	}

	/**
	 * Empty Redis, then give every key the state of one real call: the call is made on a
	 * probe key, whose Redis keys are then copied for every caller key, their time to
	 * live with them.
	 */
	private static Contender.Subject fill(BenchRedis redis, Contender contender, Limit limit, long keys) {
		// Freed in the background, as ten million keys take longer than a command may,
		// and
		// waited for, so that freeing them takes no time from the next measurement.
		redis.server().command("FLUSHALL", "ASYNC");
		redis.server().command("SCRIPT", "FLUSH");
		while (info(redis, "memory", "lazyfree_pending_objects") > 0) {
			java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
		}
		Contender.Subject subject = contender.create(redis, limit);
		subject.acquire(PROBE);
		for (String source : subject.redisKeys(PROBE)) {
			int at = source.indexOf(PROBE);
			String head = source.substring(0, at);
			String tail = source.substring(at + PROBE.length());
			for (long from = 0; from < keys; from += CHUNK) {
				redis.server()
					.command("EVAL",
							"for i = tonumber(ARGV[4]), tonumber(ARGV[5]) do "
									+ "redis.call('COPY', ARGV[1], ARGV[2] .. i .. ARGV[3]) end",
							"0", source, head, tail, Long.toString(from),
							Long.toString(Math.min(keys, from + CHUNK) - 1));
			}
		}
		return subject;
	}

	/** Decide on keys drawn uniformly; return decisions and admissions. */
	private static long[] drive(Contender.Subject subject, long keys, int threads, double seconds)
			throws InterruptedException {
		LongAdder decisions = new LongAdder();
		LongAdder admitted = new LongAdder();
		long deadline = System.nanoTime() + (long) (seconds * 1e9);
		Thread[] workers = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			workers[t] = new Thread(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				long count = 0;
				long allowed = 0;
				while (System.nanoTime() < deadline) {
					if (subject.acquire(Long.toString(random.nextLong(keys))) != 0) {
						allowed++;
					}
					count++;
				}
				decisions.add(count);
				admitted.add(allowed);
			});
			workers[t].start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		return new long[] { decisions.sum(), admitted.sum() };
	}

	private static long usedMemory(BenchRedis redis) {
		return info(redis, "memory", "used_memory");
	}

	private static long info(BenchRedis redis, String section, String field) {
		for (String line : String.valueOf(redis.server().command("INFO", section)).split("\r\n")) {
			if (line.startsWith(field + ":")) {
				return Long.parseLong(line.substring(field.length() + 1));
			}
		}
		return -1;
	}

	private static long usedHeap() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

}
