package dev.limiter.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiterContractTests;
import dev.limiter.internal.Decisions;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A differential test of the single-limit scripts (single.lua with one fragment): on
 * random schedules of one limit (random thresholds, windows, permits, times, and refunds
 * through the composed script), each gives the very reply of the composed script on a
 * twin key, and leaves the same state (the usage both read after every call).
 */
class SingleLimitScriptsIntegrationTests {

	private final RedisServer redis = RedisServer.shared();

	private final LettuceConnectionFactory factory = connectionFactory(this.redis);

	private final RedisScriptExecutor executor = RedisScriptExecutor.of(this.factory);

	@AfterEach
	void close() {
		this.executor.close();
		this.factory.destroy();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "ADAPTIVE", mode = EnumSource.Mode.EXCLUDE)
	void aSingleLimitScriptRepliesAsTheComposedScript(Algorithm algorithm) {
		Limit probe = Limit.of(1, Duration.ofSeconds(1)).withAlgorithm(algorithm);
		RedisScript<List<Long>> single = LimitScript.acquireScript(List.of(probe), false);
		RedisScript<List<Long>> composed = LimitScript.script(List.of(probe));
		assertThat(LimitScript.acquireScript(List.of(probe, Limit.of(1, Duration.ofSeconds(2))), false))
			.as("two limits")
			.isSameAs(LimitScript.script(List.of(probe, Limit.of(1, Duration.ofSeconds(2)))));
		if (single == composed) {
			// No script of its own: the composed script decides, nothing to compare.
			return;
		}
		assertThat(LimitScript.acquireScript(List.of(probe), true)).as("counting rejections").isSameAs(composed);
		int schedules = Math.max(100, Integer.getInteger(RateLimiterContractTests.SCHEDULES_PROPERTY, 0) / 10);
		long seed = Long.getLong(RateLimiterContractTests.SCHEDULES_PROPERTY + ".seed", System.nanoTime());
		Random random = new Random(seed);
		List<String> differences = new ArrayList<>();
		for (int schedule = 0; schedule < schedules && differences.isEmpty(); schedule++) {
			this.redis.flushAll();
			boolean serverClock = random.nextInt(4) == 0;
			// On the server's clock the two calls of a step are a moment apart: a window
			// of
			// an hour keeps that moment from changing a count.
			Duration window = serverClock ? Duration.ofHours(1).plusMillis(random.nextInt(5_000))
					: Duration.ofMillis(1 + random.nextInt(5_000));
			Limit limit = Limit.of("l", 1 + random.nextInt(20), window)
				.withAlgorithm(algorithm)
				.withSlices(1 + random.nextInt(30));
			long now = System.currentTimeMillis() * 1_000;
			List<long[]> grants = new ArrayList<>();
			for (int call = 0; call < 40 && differences.isEmpty(); call++) {
				now += random.nextInt(400_000);
				String where = "seed " + seed + ", schedule " + schedule + " " + limit
						+ (serverClock ? " on the server's clock" : "") + ", call " + call + ": ";
				if (!grants.isEmpty() && random.nextInt(8) == 0) {
					long[] grant = grants.remove(random.nextInt(grants.size()));
					release("single:", limit, grant[0], grant[1], grant[2], now);
					release("composed:", limit, grant[0], grant[1], grant[3], now);
					continue;
				}
				long permits = (random.nextInt(4) == 0) ? 1 + random.nextInt((int) limit.threshold()) : 1;
				// The server's clock moves between two calls: only the client's clock
				// can give both scripts the same instant.
				long at = serverClock ? -1 : now;
				String member = "m" + call;
				byte[][] args = LimitScript.acquireArgs(permits, at, false, member, List.of(limit));
				List<Long> fromSingle = this.executor.execute(single, LimitScript.keys("single:", "k", List.of(limit)),
						args);
				List<Long> fromComposed = this.executor.execute(composed,
						LimitScript.keys("composed:", "k", List.of(limit)), args);
				if (serverClock) {
					// Same decision and count; the times differ by that moment.
					if (!fromSingle.subList(0, 3).equals(fromComposed.subList(0, 3))) {
						differences.add(where + "single " + fromSingle + ", composed " + fromComposed);
					}
				}
				else if (!fromSingle.equals(fromComposed)) {
					differences.add(where + permits + " permits: single " + fromSingle + ", composed " + fromComposed);
				}
				if (fromSingle.get(0) == 1L && fromComposed.get(0) == 1L) {
					grants.add(new long[] { permits, call, fromSingle.get(5), fromComposed.get(5) });
				}
				if (serverClock) {
					continue;
				}
				List<Long> usageOfSingle = usage("single:", limit, now);
				List<Long> usageOfComposed = usage("composed:", limit, now);
				if (!usageOfSingle.equals(usageOfComposed)) {
					differences.add(where + "usage: single " + usageOfSingle + ", composed " + usageOfComposed);
				}
			}
		}
		assertThat(differences).isEmpty();
	}

	/** Give back, through the composed script, a grant made at {@code at} on one twin. */
	private void release(String prefix, Limit limit, long permits, long call, long at, long now) {
		Decision.Grant released = Decisions
			.granting(Decision.allowed(limit, 0, Duration.ZERO, at), "k", permits, List.of(limit), "m" + call)
			.grant();
		this.executor.execute(LimitScript.script(List.of(limit)), LimitScript.keys(prefix, "k", List.of(limit)),
				LimitScript.releaseArgs(now, released));
	}

	private List<Long> usage(String prefix, Limit limit, long now) {
		return this.executor.execute(LimitScript.script(List.of(limit)), LimitScript.keys(prefix, "k", List.of(limit)),
				LimitScript.usageArgs(now, List.of(limit)));
	}

	private static LettuceConnectionFactory connectionFactory(RedisServer server) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		factory.afterPropertiesSet();
		return factory;
	}

}
