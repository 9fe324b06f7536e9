package dev.limiter.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.resilience.ResilientRateLimiter;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls in flight under faults, with real processes: an instance killed with SIGKILL
 * while it holds its slots, an instance paused (SIGSTOP) past its leases and resumed, and
 * Redis gone. The instances that hold slots are JVMs of their own ({@link SlotHolder}).
 */
class InFlightFaultIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final Duration LEASE = Duration.ofSeconds(2);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	@Test
	void theSlotsOfAnInstanceKilledMidCallFreeThemselvesWhenTheirLeasesEnd() throws Exception {
		redis.flushAll();
		Holder holder = holder("killed", 5);
		RedisRateLimiter limiter = limiter();
		Limit limit = limit();
		// renewed by the holder's JVM: still held past a lease and a half
		long until = System.nanoTime() + LEASE.toNanos() * 3 / 2;
		while (System.nanoTime() < until) {
			assertThat(limiter.acquire("killed", limit).isAllowed()).as("held by a live instance").isFalse();
			TimeUnit.MILLISECONDS.sleep(100);
		}
		long killed = System.nanoTime();
		holder.process.destroyForcibly().waitFor();
		Duration freed = awaitSlot(limiter, "killed", limit);
		System.out.println("In-flight: slots of a SIGKILLed instance free after " + freed.toMillis() + " ms (lease "
				+ LEASE.toMillis() + " ms)");
		assertThat(freed).as("at most a lease after the kill (plus scheduling)")
			.isLessThanOrEqualTo(LEASE.plusMillis(1_000));
		assertThat(Duration.ofNanos(System.nanoTime() - killed)).isGreaterThan(Duration.ZERO);
	}

	@Test
	void anInstancePausedPastItsLeasesNeverPutsAKeyOverItsThresholdAndItsLateEndsFreeNothing() throws Exception {
		redis.flushAll();
		Holder holder = holder("paused", 5);
		RedisRateLimiter limiter = limiter();
		Limit limit = limit();
		signal(holder.process, "STOP");
		// every lease of the paused holder ends (they were taken one after another, so
		// they can end a few milliseconds apart)
		awaitFree(limiter, "paused", limit);
		List<Decision> mine = new ArrayList<>();
		mine.add(limiter.acquire("paused", limit));
		for (int i = 0; i < 4; i++) {
			Decision decision = limiter.acquire("paused", limit);
			assertThat(decision.isAllowed()).isTrue();
			mine.add(decision);
		}
		signal(holder.process, "CONT");
		// the woken instance renews and ends its five calls: their leases ended, so the
		// renewal takes nothing back and the ends remove only their own members
		holder.send("finish");
		assertThat(holder.read()).isEqualTo("FINISHED 5");
		assertThat(limiter.usage("paused", List.of(limit)).get(0).used()).as("the slots this instance holds")
			.isEqualTo(5);
		assertThat(limiter.acquire("paused", limit).isAllowed()).as("never over 5").isFalse();
		mine.forEach(limiter::finish);
		assertThat(limiter.usage("paused", List.of(limit)).get(0).used()).isZero();
	}

	@Test
	void withRedisGoneTheLocalPolicyCountsEachInstancesCallsInFlight() {
		ResilientRateLimiter limiter = new ResilientRateLimiter(RedisRateLimiter.builder(factory(1)).build(),
				FailurePolicy.LOCAL, new InMemoryRateLimiter(), 3, Duration.ofMillis(250), null);
		Limit limit = limit();
		List<Decision> running = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			Decision decision = limiter.acquire("alone", limit);
			assertThat(decision.isAllowed()).isTrue();
			assertThat(decision.policy()).isEqualTo(FailurePolicy.LOCAL);
			running.add(decision);
		}
		assertThat(limiter.acquire("alone", limit).isAllowed()).as("5 in flight on this instance").isFalse();
		assertThat(limiter.finish(running.get(0))).isTrue();
		assertThat(limiter.acquire("alone", limit).isAllowed()).isTrue();
	}

	private static Limit limit() {
		return Limit.of("held", 5, LEASE).withAlgorithm(Algorithm.IN_FLIGHT);
	}

	/** Ask for a slot until one frees, bounded; return how long it took. */
	private static Duration awaitSlot(RedisRateLimiter limiter, String key, Limit limit) throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			Decision decision = limiter.acquire(key, limit);
			if (decision.isAllowed()) {
				limiter.finish(decision);
				return Duration.ofNanos(System.nanoTime() - start);
			}
			TimeUnit.MILLISECONDS.sleep(20);
		}
		throw new AssertionError("No slot of '" + key + "' freed within 20 s");
	}

	/** Wait until no slot of the key is held, bounded. */
	private static void awaitFree(RedisRateLimiter limiter, String key, Limit limit) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (limiter.usage(key, List.of(limit)).get(0).used() > 0) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("The slots of '" + key + "' were still held after 20 s");
			}
			TimeUnit.MILLISECONDS.sleep(20);
		}
	}

	private RedisRateLimiter limiter() {
		RedisRateLimiter limiter = RedisRateLimiter.builder(factory(redis.port())).build();
		this.closeables.add(limiter);
		return limiter;
	}

	private LettuceConnectionFactory factory(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		this.closeables.add(factory::destroy);
		return factory;
	}

	private Holder holder(String key, int calls) throws Exception {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		Process process = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
				SlotHolder.class.getName(), Integer.toString(redis.port()), key, "5", Long.toString(LEASE.toMillis()),
				Integer.toString(calls))
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		Holder holder = new Holder(process);
		this.closeables.add(() -> process.destroyForcibly().waitFor());
		assertThat(holder.read()).isEqualTo("HELD " + calls);
		return holder;
	}

	private static void signal(Process process, String signal) throws Exception {
		assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor()).isZero();
	}

	private static final class Holder {

		private final Process process;

		private final BufferedReader output;

		private final Writer input;

		Holder(Process process) {
			this.process = process;
			this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
			this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		}

		String read() throws Exception {
			String line = this.output.readLine();
			while (line != null && !line.startsWith("HELD") && !line.startsWith("FINISHED")
					&& !line.startsWith("REFUSED")) {
				line = this.output.readLine();
			}
			return line;
		}

		void send(String line) throws Exception {
			this.input.write(line + "\n");
			this.input.flush();
		}

	}

}
