package dev.limiter.benchmarks;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

import dev.limiter.Limit;

/**
 * Measures what JMH cannot see, on one {@code redis-server} and one shared connection:
 * Redis server time and round trips per decision ({@code INFO commandstats} and the
 * client's own command count), bytes per key ({@code MEMORY USAGE}), and an oracle that
 * counts over-admissions on the hot key. Writes one JSON file.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.ServerCost <out.json> [seconds] [threads]}
 */
public final class ServerCost {

	private static final int[] MEMORY_THRESHOLDS = { 10, 100, 128, 129, 1000 };

	private ServerCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/server.json");
		double seconds = (args.length > 1) ? Double.parseDouble(args[1]) : 3;
		int threads = (args.length > 2) ? Integer.parseInt(args[2]) : 8;
		CommandCounter counter = new CommandCounter();
		Map<String, Object> report;
		try (BenchRedis redis = BenchRedis.start(counter)) {
			report = report(redis, threads, seconds);
			List<Object> runs = new ArrayList<>();
			for (Workload workload : Workload.values()) {
				for (Contender contender : contenders()) {
					runs.add(run(redis, counter, contender, workload, threads, seconds));
				}
			}
			for (Contender contender : contenders()) {
				if (contender != Contender.LIMITER_LEAN) {
					runs.add(run(redis, counter, contender, Workload.HOT_KEY, 32, seconds));
				}
			}
			report.put("runs", runs);
			List<Object> savings = new ArrayList<>();
			List<Workload> cached = contenders().contains(Contender.LIMITER)
					? List.of(Workload.REJECT_HEAVY, Workload.ZIPF, Workload.HOT_KEY) : List.of();
			for (Workload workload : cached) {
				double rate = runs.stream()
					.map((run) -> (Map<?, ?>) run)
					.filter((run) -> run.get("contender").equals(Contender.LIMITER.id())
							&& run.get("workload").equals(workload.id()) && run.get("threads").equals(threads))
					.mapToDouble((run) -> (Double) run.get("decisionsPerSecond"))
					.findFirst()
					.orElseThrow();
				// Longer than the window, so blocks expire and are set again during the
				// run.
				double duration = Math.max(seconds, workload.limit().period().toSeconds() + 2);
				savings.add(cacheSavings(redis, counter, workload, rate, threads, duration));
			}
			report.put("cacheSavings", savings);
			report.put("memory", memory(redis));
		}
		write(out, report);
	}

	/** Write a report as JSON, creating the folder it goes in. */
	public static void write(Path out, Map<String, Object> report) throws java.io.IOException {
		Files.createDirectories(out.toAbsolutePath().getParent());
		try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(out))) {
			writer.println(Json.write(report));
		}
		System.out.println("Wrote " + out);
	}

	/**
	 * The contenders to measure: all, or those named in the system property
	 * {@code contenders} (ids, comma-separated), for a quicker look at a few.
	 */
	private static List<Contender> contenders() {
		String ids = System.getProperty("contenders");
		if (ids == null || ids.isBlank()) {
			return List.of(Contender.values());
		}
		return Arrays.stream(ids.split(",")).map(String::strip).map(Contender::of).toList();
	}

	static Map<String, Object> run(BenchRedis redis, CommandCounter counter, Contender contender, Workload workload,
			int threads, double seconds) throws InterruptedException {
		redis.server().flushAll();
		Contender.Subject subject = contender.create(redis, workload.limit());
		drive(subject, workload, threads, 1.0, false);
		redis.server().command("CONFIG", "RESETSTAT");
		counter.reset();
		Result result = drive(subject, workload, threads, seconds, workload == Workload.HOT_KEY);
		Map<String, Long> sent = counter.snapshot();
		Map<String, double[]> stats = commandStats(redis);
		double[] cost = serverCost(sent, stats);
		double serverMicros = cost[0];
		long roundTrips = (long) cost[1];
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("contender", contender.id());
		row.put("workload", workload.id());
		row.put("threads", threads);
		row.put("decisions", result.decisions);
		row.put("admitted", result.admitted);
		row.put("decisionsPerSecond", result.decisions / seconds);
		row.put("redisCallsPerDecision", (double) roundTrips / result.decisions);
		row.put("serverMicrosPerDecision", serverMicros / result.decisions);
		row.put("sent", sent);
		Map<String, Object> server = new TreeMap<>();
		stats.forEach((command, stat) -> server.put(command, Map.of("calls", (long) stat[0], "usecPerCall", stat[1])));
		row.put("commandstats", server);
		if (result.admissions != null) {
			row.put("oracle", Oracle.check(contender, workload.limit(), result.admissions));
		}
		System.out.printf("%-15s %-13s t=%-2d %9.0f dec/s  calls/dec %.3f  server us/dec %.2f  admitted %d%n",
				contender.id(), workload.id(), threads, result.decisions / seconds,
				(double) roundTrips / result.decisions, serverMicros / result.decisions, result.admitted);
		return row;
	}

	/**
	 * Offer the rejection cache the load the plain limiter sustained, from an empty
	 * Redis, and count the calls that still reach Redis.
	 */
	private static Map<String, Object> cacheSavings(BenchRedis redis, CommandCounter counter, Workload workload,
			double rate, int threads, double seconds) throws InterruptedException {
		redis.server().flushAll();
		Contender.Subject subject = Contender.LIMITER_CACHED.create(redis, workload.limit());
		counter.reset();
		LongAdder decisions = new LongAdder();
		long intervalNanos = (long) (threads * 1e9 / rate);
		long begin = System.nanoTime();
		long deadline = begin + (long) (seconds * 1e9);
		Thread[] workers = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			workers[t] = new Thread(() -> {
				long next = System.nanoTime();
				long count = 0;
				while (next < deadline) {
					subject.acquire(workload.nextKey());
					count++;
					next += intervalNanos;
					long wait = next - System.nanoTime();
					if (wait > 0) {
						java.util.concurrent.locks.LockSupport.parkNanos(wait);
					}
				}
				decisions.add(count);
			});
			workers[t].start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		long calls = counter.snapshot().values().stream().mapToLong(Long::longValue).sum();
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("workload", workload.id());
		row.put("threads", threads);
		row.put("seconds", seconds);
		row.put("offeredPerSecond", rate);
		row.put("decisions", decisions.sum());
		row.put("redisCalls", calls);
		row.put("callsSaved", 1 - (double) calls / decisions.sum());
		System.out.printf("cache savings %-13s %.0f dec/s offered, %d decisions, %d Redis calls, %.2f%% saved%n",
				workload.id(), rate, decisions.sum(), calls, 100 * (1 - (double) calls / decisions.sum()));
		return row;
	}

	private static Result drive(Contender.Subject subject, Workload workload, int threads, double seconds,
			boolean record) throws InterruptedException {
		LongAdder decisions = new LongAdder();
		LongAdder admitted = new LongAdder();
		List<long[]> admissions = record ? java.util.Collections.synchronizedList(new ArrayList<>()) : null;
		long deadline = System.nanoTime() + (long) (seconds * 1e9);
		Thread[] workers = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			workers[t] = new Thread(() -> {
				List<long[]> mine = new ArrayList<>();
				long count = 0;
				long allowed = 0;
				while (System.nanoTime() < deadline) {
					long start = System.nanoTime();
					long at = subject.acquire(workload.nextKey());
					if (at != 0) {
						allowed++;
						if (record) {
							mine.add(new long[] { start, System.nanoTime(), at });
						}
					}
					count++;
				}
				decisions.add(count);
				admitted.add(allowed);
				if (record) {
					admissions.addAll(mine);
				}
			});
			workers[t].start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		return new Result(decisions.sum(), admitted.sum(), admissions);
	}

	/**
	 * The Redis server time and round trips of the commands sent since the counter and
	 * the statistics were reset: usec_per_call times the calls sent, so that a command
	 * that is sent and also called by scripts counts only as often as it was sent.
	 * @return {server µs, round trips}
	 */
	static double[] serverCost(Map<String, Long> sent, Map<String, double[]> stats) {
		double serverMicros = 0;
		long roundTrips = 0;
		for (Map.Entry<String, Long> entry : sent.entrySet()) {
			double[] stat = stats.get(entry.getKey());
			serverMicros += (stat != null) ? entry.getValue() * stat[1] : 0;
			roundTrips += entry.getValue();
		}
		return new double[] { serverMicros, roundTrips };
	}

	/** The start of a report: the Redis version and how the run was driven. */
	static Map<String, Object> report(BenchRedis redis, int threads, double seconds) {
		Map<String, Object> report = new LinkedHashMap<>();
		report.put("redisVersion", redis.server().version());
		report.put("threads", threads);
		report.put("seconds", seconds);
		return report;
	}

	static Map<String, double[]> commandStats(BenchRedis redis) {
		Map<String, double[]> stats = new TreeMap<>();
		for (String line : String.valueOf(redis.server().command("INFO", "commandstats")).split("\r\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String name = line.substring("cmdstat_".length(), line.indexOf(':'));
			double calls = 0;
			double perCall = 0;
			for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
				String[] pair = field.split("=");
				if (pair[0].equals("calls")) {
					calls = Double.parseDouble(pair[1]);
				}
				else if (pair[0].equals("usec_per_call")) {
					perCall = Double.parseDouble(pair[1]);
				}
			}
			stats.put(name, new double[] { calls, perCall });
		}
		return stats;
	}

	private static Map<String, Object> memory(BenchRedis redis) {
		Map<String, Object> memory = new LinkedHashMap<>();
		for (Contender contender : Contender.values()) {
			if (contender == Contender.EVALSHA || contender == Contender.LIMITER_CACHED
					|| contender == Contender.LIMITER_LEAN) {
				continue;
			}
			Map<String, Object> bytes = new LinkedHashMap<>();
			for (int n : MEMORY_THRESHOLDS) {
				redis.server().flushAll();
				// A window long enough that all n calls are admitted and stay in it.
				Limit limit = Limit.of(n, Duration.ofHours(1));
				Contender.Subject subject = contender.create(redis, limit);
				String key = "memory";
				for (int i = 0; i < n; i++) {
					subject.acquire(key);
				}
				long total = 0;
				List<String> keys = subject.redisKeys(key);
				for (String redisKey : keys.isEmpty() ? List.of(key) : keys) {
					Object usage = redis.server().command("MEMORY", "USAGE", redisKey);
					total += (usage instanceof Long value) ? value : 0;
				}
				bytes.put(Integer.toString(n), total);
			}
			memory.put(contender.id(), bytes);
			System.out.println("memory " + contender.id() + " " + bytes);
		}
		return memory;
	}

	private record Result(long decisions, long admitted, List<long[]> admissions) {
	}

	/**
	 * Counts admissions beyond each implementation's own promise on the hot key.
	 */
	static final class Oracle {

		private Oracle() {
		}

		static Map<String, Object> check(Contender contender, Limit limit, List<long[]> admissions) {
			Map<String, Object> result = new LinkedHashMap<>();
			long threshold = limit.threshold();
			long windowNanos = limit.period().toNanos();
			int n = admissions.size();
			result.put("admitted", n);
			if (contender == Contender.LIMITER || contender == Contender.LIMITER_CACHED
					|| contender == Contender.LIMITER_LEAN || contender == Contender.LIMITER_BUCKETS) {
				// Exact: Redis server time of each admission, from
				// Decision.decidedAtMicros().
				long[] at = new long[n];
				for (int i = 0; i < n; i++) {
					at[i] = admissions.get(i)[2];
				}
				Arrays.sort(at);
				long windowMicros = limit.periodMicros();
				long over = 0;
				for (int i = 0; i + threshold < n; i++) {
					// at[i]..at[i + N] are N + 1 admissions; inside (t - W, t] when
					// closer than W.
					if (at[(int) (i + threshold)] - at[i] < windowMicros) {
						over++;
					}
				}
				result.put("method", "sliding window on Redis server timestamps");
				result.put("overAdmissions", over);
				result.put("maxInAnyWindow", maxInWindow(at, windowMicros));
				return result;
			}
			if (contender == Contender.INCR || contender == Contender.EVALSHA) {
				result.put("method", "floor, no limit");
				return result;
			}
			// Token buckets promise at most capacity + rate * t in any interval t. Their
			// decision time is only known to lie between send and answer: take the
			// midpoint and grant the longest call's duration as slack, plus the clock's
			// granularity (Redis TIME seconds for the gateway, milliseconds for
			// Bucket4j).
			long[] mid = new long[n];
			long slack = 0;
			for (int i = 0; i < n; i++) {
				long[] admission = admissions.get(i);
				mid[i] = (admission[0] + admission[1]) / 2;
				slack = Math.max(slack, admission[1] - admission[0]);
			}
			Arrays.sort(mid);
			slack += (contender == Contender.SCG) ? 1_000_000_000L : 1_000_000L;
			double ratePerNano = (double) threshold / windowNanos;
			double bound = threshold + ratePerNano * slack;
			double best = Double.NEGATIVE_INFINITY;
			long over = 0;
			for (int j = 0; j < n; j++) {
				// count(i..j) - rate * (mid[j] - mid[i]) = (j - rate*mid[j]) - (i -
				// rate*mid[i]) + 1
				best = Math.max(best, ratePerNano * mid[j] - j);
				double excess = (j - ratePerNano * mid[j]) + best + 1 - bound;
				if (excess > 1e-9) {
					over++;
				}
			}
			result.put("method", "token bucket bound C + r*t on client midpoints, slack " + slack / 1000 + "us");
			result.put("overAdmissions", over);
			result.put("maxInAnyWindow", maxInWindow(divide(mid, 1000), windowNanos / 1000));
			return result;
		}

		private static long[] divide(long[] values, long by) {
			long[] result = new long[values.length];
			for (int i = 0; i < values.length; i++) {
				result[i] = values[i] / by;
			}
			return result;
		}

		private static int maxInWindow(long[] sorted, long window) {
			int max = 0;
			int start = 0;
			for (int end = 0; end < sorted.length; end++) {
				while (sorted[end] - sorted[start] >= window) {
					start++;
				}
				max = Math.max(max, end - start + 1);
			}
			return max;
		}

	}

	/**
	 * Just enough JSON for maps, lists, strings and numbers.
	 */
	static final class Json {

		private Json() {
		}

		static String write(Object value) {
			StringBuilder json = new StringBuilder();
			write(json, value, "");
			return json.toString();
		}

		private static void write(StringBuilder json, Object value, String indent) {
			if (value instanceof Map<?, ?> map) {
				json.append("{");
				String separator = "\n";
				for (Map.Entry<?, ?> entry : map.entrySet()) {
					json.append(separator).append(indent).append("  ");
					write(json, String.valueOf(entry.getKey()), indent);
					json.append(": ");
					write(json, entry.getValue(), indent + "  ");
					separator = ",\n";
				}
				json.append("\n").append(indent).append("}");
			}
			else if (value instanceof List<?> list) {
				json.append("[");
				String separator = "\n";
				for (Object item : list) {
					json.append(separator).append(indent).append("  ");
					write(json, item, indent + "  ");
					separator = ",\n";
				}
				json.append("\n").append(indent).append("]");
			}
			else if (value instanceof String string) {
				json.append('"').append(string.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
			}
			else if (value instanceof Double number) {
				json.append(Double.isFinite(number) ? String.format(java.util.Locale.ROOT, "%.4f", number) : "null");
			}
			else {
				json.append(value);
			}
		}

	}

}
