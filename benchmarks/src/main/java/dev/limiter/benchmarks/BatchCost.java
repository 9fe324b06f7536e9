package dev.limiter.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;

import dev.limiter.Algorithm;
import dev.limiter.Limit;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;

/**
 * Whether sending the decisions that wait on one connection at the same moment as one
 * script call pays (round 4, item 4): Limiter's single-limit script sent once per
 * decision, as the engine sends it, against a prototype that sends everything queued when
 * the connection is free to take it (nothing waits for company) as one script call, which
 * runs the same script body once per decision with {@code TIME} read once. Runs alternate
 * at 8, 64 and 256 concurrent callers on one {@code redis-server} and one shared
 * connection; reports decisions per second, Redis server microseconds per decision
 * ({@code INFO commandstats}), the client's process CPU per decision and the mean batch.
 * The prototype lives here only: it measures, it does not decide anything a user sees.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.BatchCost <out.json> [seconds] [rounds]}
 */
public final class BatchCost {

	private static final int USERS = 10_000;

	private static final int[] CALLERS = { 8, 64, 256 };

	private BatchCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/batch.json");
		double seconds = (args.length > 1) ? Double.parseDouble(args[1]) : 4;
		int rounds = (args.length > 2) ? Integer.parseInt(args[2]) : 2;
		Map<String, Object> report;
		try (BenchRedis redis = BenchRedis.start(null)) {
			report = ServerCost.report(redis, 0, seconds);
			List<Object> runs = new ArrayList<>();
			for (Algorithm algorithm : List.of(Algorithm.SLIDING_LOG, Algorithm.TOKEN_BUCKET)) {
				Limit limit = Limit.of(1_000_000, Duration.ofMinutes(1)).withAlgorithm(algorithm);
				Script script = Script.load(redis.nativeCommands(), limit);
				run(redis, script, limit, 8, false, 1);
				run(redis, script, limit, 8, true, 1);
				for (int round = 0; round < rounds; round++) {
					for (int callers : CALLERS) {
						runs.add(run(redis, script, limit, callers, false, seconds));
						runs.add(run(redis, script, limit, callers, true, seconds));
					}
				}
			}
			report.put("runs", runs);
		}
		ServerCost.write(out, report);
	}

	private static Map<String, Object> run(BenchRedis redis, Script script, Limit limit, int callers, boolean batched,
			double seconds) throws Exception {
		redis.server().flushAll();
		script.load(redis.nativeCommands());
		redis.server().command("CONFIG", "RESETSTAT");
		RedisAsyncCommands<byte[], byte[]> commands = redis.nativeCommands();
		Batcher batcher = batched ? new Batcher(commands, script) : null;
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		LongAdder decisions = new LongAdder();
		LongAdder admitted = new LongAdder();
		AtomicLong member = new AtomicLong();
		long end = System.nanoTime() + (long) (seconds * 1e9);
		long cpu = os.getProcessCpuTime();
		long start = System.nanoTime();
		Thread[] workers = new Thread[callers];
		for (int t = 0; t < callers; t++) {
			workers[t] = new Thread(() -> {
				try {
					while (System.nanoTime() < end) {
						String key = "u:" + ThreadLocalRandom.current().nextInt(USERS);
						byte[][] keys = script.keys(key, limit);
						byte[][] args = script.args(Long.toString(member.incrementAndGet(), 36), limit);
						List<?> reply = batched ? batcher.decide(keys, args).get(10, TimeUnit.SECONDS)
								: commands.<List<?>>evalsha(script.single, ScriptOutputType.MULTI, keys, args)
									.get(10, TimeUnit.SECONDS);
						decisions.increment();
						admitted.add((Long) reply.get(0));
					}
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			workers[t].start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		double wall = (System.nanoTime() - start) / 1e9;
		double cpuMicros = (os.getProcessCpuTime() - cpu) / 1e3 / decisions.sum();
		if (batcher != null) {
			batcher.stop();
		}
		Map<String, double[]> stats = ServerCost.commandStats(redis);
		double[] evalsha = stats.getOrDefault("evalsha", new double[2]);
		Map<String, Object> run = new LinkedHashMap<>();
		run.put("algorithm", limit.algorithm().name());
		run.put("callers", callers);
		run.put("mode", batched ? "batched" : "one script call per decision");
		run.put("decisions", decisions.sum());
		run.put("admitted", admitted.sum());
		run.put("decisionsPerSecond", decisions.sum() / wall);
		run.put("scriptCalls", (long) evalsha[0]);
		run.put("meanBatch", decisions.sum() / Math.max(1, evalsha[0]));
		run.put("redisMicrosPerDecision", evalsha[0] * evalsha[1] / decisions.sum());
		run.put("clientCpuMicrosPerDecision", cpuMicros);
		System.out.println(run);
		return run;
	}

	/**
	 * Limiter's single-limit script of an algorithm, and the prototype that runs its body
	 * once per decision of a batch: the body becomes a function whose parameters shadow
	 * {@code KEYS} and {@code ARGV}, and each decision gets the batch's one reading of
	 * {@code TIME} as its client clock.
	 */
	private record Script(String single, String batch, String singleSource, String batchSource, Method keys,
			Method args) {

		/** Load both scripts again, after the server's scripts were flushed. */
		void load(RedisAsyncCommands<byte[], byte[]> commands) throws Exception {
			sha(commands, this.singleSource);
			sha(commands, this.batchSource);
		}

		static Script load(RedisAsyncCommands<byte[], byte[]> commands, Limit limit) throws Exception {
			Class<?> sources = Class.forName("dev.limiter.redis.ScriptSources");
			Method single = sources.getDeclaredMethod("single", String.class);
			single.setAccessible(true);
			String body = (String) single.invoke(null, AlgorithmDescriptor.of(limit.algorithm()).code());
			String batch = "local function decide(KEYS, ARGV)\n" + body + "\nend\n"
					+ "local time = redis.call('TIME')\n"
					+ "local now = tostring(tonumber(time[1]) * 1000000 + tonumber(time[2]))\n"
					+ "local replies, key, arg = {}, 1, 2\n" + "for d = 1, tonumber(ARGV[1]) do\n"
					+ "  local keys, args = {}, {}\n"
					+ "  for i = 1, tonumber(ARGV[arg]) do keys[i] = KEYS[key]; key = key + 1 end\n"
					+ "  for i = 1, tonumber(ARGV[arg + 1]) do args[i] = ARGV[arg + 1 + i] end\n"
					+ "  arg = arg + 2 + #args\n" + "  args[3] = now\n" + "  replies[d] = decide(keys, args)\n"
					+ "end\n" + "return replies\n";
			Class<?> script = Class.forName("dev.limiter.redis.LimitScript");
			Method keys = script.getDeclaredMethod("keys", String.class, String.class, List.class);
			Method args = script.getDeclaredMethod("acquireArgs", long.class, long.class, boolean.class, String.class,
					List.class);
			keys.setAccessible(true);
			args.setAccessible(true);
			return new Script(sha(commands, body), sha(commands, batch), body, batch, keys, args);
		}

		private static String sha(RedisAsyncCommands<byte[], byte[]> commands, String source) throws Exception {
			return commands.scriptLoad(source.getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
		}

		byte[][] keys(String key, Limit limit) {
			try {
				return (byte[][]) this.keys.invoke(null, "limiter:", key, List.of(limit));
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}

		byte[][] args(String member, Limit limit) {
			try {
				return (byte[][]) this.args.invoke(null, 1L, -1L, false, member, List.of(limit));
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

	/**
	 * Sends what is queued as one script call as soon as it can: one thread takes the
	 * first decision waiting, with every other already there, and sends them without
	 * waiting for the reply of the batch before.
	 */
	private static final class Batcher {

		private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();

		private final Thread sender;

		private volatile boolean stopped;

		Batcher(RedisAsyncCommands<byte[], byte[]> commands, Script script) {
			this.sender = new Thread(() -> {
				List<Pending> batch = new ArrayList<>();
				while (!this.stopped) {
					try {
						Pending first = this.queue.poll(100, TimeUnit.MILLISECONDS);
						if (first == null) {
							continue;
						}
						batch.add(first);
						this.queue.drainTo(batch);
						send(commands, script, List.copyOf(batch));
						batch.clear();
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			});
			this.sender.setDaemon(true);
			this.sender.start();
		}

		CompletableFuture<List<?>> decide(byte[][] keys, byte[][] args) {
			Pending pending = new Pending(keys, args, new CompletableFuture<>());
			this.queue.add(pending);
			return pending.reply;
		}

		void stop() throws InterruptedException {
			this.stopped = true;
			this.sender.join();
		}

		private static void send(RedisAsyncCommands<byte[], byte[]> commands, Script script, List<Pending> batch) {
			int keyCount = 0;
			int argCount = 1;
			for (Pending pending : batch) {
				keyCount += pending.keys.length;
				argCount += 2 + pending.args.length;
			}
			byte[][] keys = new byte[keyCount][];
			byte[][] args = new byte[argCount][];
			args[0] = ascii(batch.size());
			int k = 0;
			int a = 1;
			for (Pending pending : batch) {
				System.arraycopy(pending.keys, 0, keys, k, pending.keys.length);
				k += pending.keys.length;
				args[a++] = ascii(pending.keys.length);
				args[a++] = ascii(pending.args.length);
				System.arraycopy(pending.args, 0, args, a, pending.args.length);
				a += pending.args.length;
			}
			commands.<List<?>>evalsha(script.batch(), ScriptOutputType.MULTI, keys, args)
				.whenComplete((replies, failure) -> {
					for (int i = 0; i < batch.size(); i++) {
						if (failure != null) {
							batch.get(i).reply.completeExceptionally(failure);
						}
						else {
							batch.get(i).reply.complete((List<?>) replies.get(i));
						}
					}
				});
		}

		private static byte[] ascii(int value) {
			return Integer.toString(value).getBytes(StandardCharsets.US_ASCII);
		}

	}

	private record Pending(byte[][] keys, byte[][] args, CompletableFuture<List<?>> reply) {
	}

}
