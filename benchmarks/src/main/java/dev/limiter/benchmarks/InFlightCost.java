package dev.limiter.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.internal.Engines;
import dev.limiter.internal.Leases;
import dev.limiter.redis.RedisRateLimiter;

/**
 * The cost of a call in flight, beside Redisson's {@code RPermitExpirableSemaphore} in
 * the same run on one {@code redis-server}: Redis calls and Redis server microseconds for
 * a call's acquire and release, and for renewing the lease of a running call. Redis calls
 * are the top-level commands {@code MONITOR} shows (the commands a script runs are not
 * round trips); server time is their {@code INFO commandstats} time, measured without the
 * monitor. Writes one JSON file.
 * <p>
 * Usage:
 * {@code java -cp benchmarks.jar dev.limiter.benchmarks.InFlightCost <out.json> [cycles]}
 */
public final class InFlightCost {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final int SLOTS = 100;

	private InFlightCost() {
	}

	public static void main(String[] args) throws Exception {
		Path out = Path.of((args.length > 0) ? args[0] : "results/in-flight.json");
		int cycles = (args.length > 1) ? Integer.parseInt(args[1]) : 20_000;
		Map<String, Object> report = new LinkedHashMap<>();
		try (BenchRedis redis = BenchRedis.start(null)) {
			report.put("redisVersion", redis.server().version());
			report.put("cycles", cycles);
			RedisRateLimiter limiter = RedisRateLimiter.builder(redis.nativeCommands(), Duration.ofSeconds(10)).build();
			Leases leases = Engines.of(limiter).leases();
			leases.renewOnlyOnDemand();
			Limit limit = Limit.of("calls", SLOTS, LEASE).withAlgorithm(Algorithm.IN_FLIGHT);
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + redis.server().host() + ":" + redis.server().port());
			RedissonClient redisson = Redisson.create(config);
			try {
				List<Object> rows = new ArrayList<>();
				for (int round = 0; round < 2; round++) {
					rows.add(measure(redis, "limiter", "acquire+release", cycles, (i) -> {
						Decision decision = limiter.acquire("k" + (i % 50), limit);
						limiter.finish(decision);
					}));
					rows.add(measure(redis, "redisson", "acquire+release", cycles, (i) -> {
						RPermitExpirableSemaphore semaphore = semaphore(redisson, "k" + (i % 50));
						String permit = semaphore.tryAcquire(0, LEASE.toMillis(), TimeUnit.MILLISECONDS);
						semaphore.release(permit);
					}));
					// the renewal of 50 running calls, on 50 keys
					List<Decision> running = new ArrayList<>();
					for (int key = 0; key < 50; key++) {
						running.add(limiter.acquire("r" + key, limit));
					}
					rows.add(measure(redis, "limiter", "renewal of 50 calls", cycles / 50, (i) -> leases.renewAll()));
					running.forEach(limiter::finish);
					List<RPermitExpirableSemaphore> semaphores = new ArrayList<>();
					List<String> permits = new ArrayList<>();
					for (int key = 0; key < 50; key++) {
						RPermitExpirableSemaphore semaphore = semaphore(redisson, "r" + key);
						semaphores.add(semaphore);
						permits.add(semaphore.tryAcquire(0, LEASE.toMillis(), TimeUnit.MILLISECONDS));
					}
					rows.add(measure(redis, "redisson", "renewal of 50 calls", cycles / 50, (i) -> {
						for (int key = 0; key < 50; key++) {
							semaphores.get(key)
								.updateLeaseTime(permits.get(key), LEASE.toMillis(), TimeUnit.MILLISECONDS);
						}
					}));
					for (int key = 0; key < 50; key++) {
						semaphores.get(key).release(permits.get(key));
					}
				}
				report.put("runs", rows);
			}
			finally {
				redisson.shutdown();
				limiter.close();
			}
		}
		ServerCost.write(out, report);
	}

	private static RPermitExpirableSemaphore semaphore(RedissonClient redisson, String key) {
		RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(key);
		semaphore.trySetPermits(SLOTS);
		return semaphore;
	}

	/**
	 * Count one cycle's top-level commands under {@code MONITOR}, then time
	 * {@code cycles} of them without it and price each command by its
	 * {@code INFO commandstats} time.
	 */
	private static Map<String, Object> measure(BenchRedis redis, String contender, String operation, int cycles,
			Cycle cycle) throws Exception {
		for (int i = 0; i < 200; i++) {
			cycle.run(i);
		}
		Map<String, Long> perCycles = monitored(redis, cycle, 100);
		redis.server().command("CONFIG", "RESETSTAT");
		long start = System.nanoTime();
		for (int i = 0; i < cycles; i++) {
			cycle.run(i);
		}
		double wallMicros = (System.nanoTime() - start) / 1e3 / cycles;
		Map<String, double[]> stats = ServerCost.commandStats(redis);
		double calls = 0;
		double serverMicros = 0;
		for (Map.Entry<String, Long> command : perCycles.entrySet()) {
			double perCycle = command.getValue() / 100.0;
			calls += perCycle;
			double[] stat = stats.get(command.getKey());
			serverMicros += (stat != null) ? perCycle * stat[1] : 0;
		}
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("contender", contender);
		row.put("operation", operation);
		row.put("redisCalls", calls);
		row.put("serverMicros", serverMicros);
		row.put("clientMicros", wallMicros);
		row.put("commands", perCycles);
		System.out.printf("%-9s %-20s Redis calls %.2f  server us %.2f  wall us %.1f  %s%n", contender, operation,
				calls, serverMicros, wallMicros, perCycles);
		return row;
	}

	/**
	 * The top-level commands of {@code cycles} cycles, by name, as MONITOR shows them.
	 */
	private static Map<String, Long> monitored(BenchRedis redis, Cycle cycle, int cycles) throws Exception {
		Map<String, Long> commands = new TreeMap<>();
		try (Socket socket = new Socket(redis.server().host(), redis.server().port())) {
			OutputStream output = socket.getOutputStream();
			BufferedReader input = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
			output.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			output.flush();
			input.readLine();
			AtomicBoolean done = new AtomicBoolean();
			Thread reader = new Thread(() -> {
				try {
					String line;
					while ((line = input.readLine()) != null) {
						if (line.toLowerCase().contains("\"echo\" \"end-of-cycles\"")) {
							break;
						}
						// "+<time> [0 127.0.0.1:port] "evalsha" ...": scripts' own are
						// "[0 lua]"
						int bracket = line.indexOf(']');
						if (bracket < 0 || line.contains("[0 lua]")) {
							continue;
						}
						int quote = line.indexOf('"', bracket);
						String name = line.substring(quote + 1, line.indexOf('"', quote + 1)).toLowerCase();
						if (name.equals("ping")) {
							// a client's keepalive, not a cycle's
							continue;
						}
						synchronized (commands) {
							commands.merge(name, 1L, Long::sum);
						}
					}
				}
				catch (java.io.IOException ex) {
					// the socket closed
				}
				done.set(true);
			});
			reader.start();
			for (int i = 0; i < cycles; i++) {
				cycle.run(i);
			}
			redis.server().command("ECHO", "end-of-cycles");
			reader.join(10_000);
		}
		synchronized (commands) {
			return new TreeMap<>(commands);
		}
	}

	@FunctionalInterface
	private interface Cycle {

		void run(int i) throws Exception;

	}

}
