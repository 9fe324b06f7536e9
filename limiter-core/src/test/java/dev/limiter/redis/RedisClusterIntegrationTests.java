package dev.limiter.redis;

import dev.limiter.internal.redis.RedisKeys;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.internal.AbstractRateLimiter;
import dev.limiter.internal.CheckedCall;
import dev.limiter.internal.Engines;
import dev.limiter.internal.WatchedDecision;
import dev.limiter.test.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine against a real 3-master Redis Cluster: several limits per call and hostile
 * keys never hit {@code CROSSSLOT}, and counts stay exact.
 */
class RedisClusterIntegrationTests {

	private static RedisCluster cluster;

	private static LettuceConnectionFactory factory;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3);
		factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.addresses()));
		factory.afterPropertiesSet();
	}

	@AfterAll
	static void stopCluster() {
		factory.destroy();
		cluster.close();
	}

	@Test
	void severalLimitsOnKeysAcrossAllSlotsAreExact() {
		RateLimiter limiter = RedisRateLimiter.builder(factory).build();
		Limit burst = Limit.of(3, Duration.ofSeconds(10));
		Limit sustained = Limit.of(5, Duration.ofMinutes(1));
		Set<Integer> masters = new HashSet<>();
		for (int user = 0; user < 30; user++) {
			// Names that differ in many bits, so that their slots spread.
			String key = UUID.nameUUIDFromBytes(new byte[] { (byte) user }) + ":/orders/{id}";
			masters.add(SlotHash.getSlot(RedisKeys.key("limiter:", key, burst)) * 3 / SlotHash.SLOT_COUNT);
			int admitted = 0;
			for (int i = 0; i < 5; i++) {
				admitted += limiter.acquire(key, burst, sustained).isAllowed() ? 1 : 0;
			}
			assertThat(admitted).isEqualTo(3);
		}
		assertThat(masters).as("keys spread over every master").hasSize(3);
	}

	/**
	 * A call's enforced and watching limits go in one script call where their keys share
	 * a slot, and in one each where they do not, with the same decisions.
	 */
	@Test
	void enforcedAndWatchingLimitsUnderKeysOfAnySlotsDecideAsTwoAcquires() {
		AbstractRateLimiter limiter = Engines.of(RedisRateLimiter.builder(factory).build());
		List<Limit> enforced = List.of(Limit.of(2, Duration.ofSeconds(10)));
		List<Limit> watched = List.of(Limit.of(1, Duration.ofSeconds(10)).withAlgorithm(Algorithm.TOKEN_BUCKET));
		int otherSlots = 0;
		for (int user = 0; user < 20; user++) {
			String key = UUID.nameUUIDFromBytes(new byte[] { (byte) user }) + ":search";
			String shadow = (user % 2 == 0) ? "s:" + key : sameSlot(key);
			otherSlots += (RedisKeys.slot(key) != RedisKeys.slot(shadow)) ? 1 : 0;
			List<WatchedDecision> decisions = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				CheckedCall call = CheckedCall.of(key, 1, enforced);
				CheckedCall watching = CheckedCall.of(shadow, 1, watched);
				decisions.add((i + user) % 2 == 0 ? limiter.acquire(call, watching)
						: limiter.acquireAsync(call, watching).join());
			}
			assertThat(decisions).extracting((d) -> d.enforced().isAllowed())
				.as(key)
				.containsExactly(true, true, false);
			assertThat(decisions.get(0).watched().isAllowed()).as(shadow).isTrue();
			assertThat(decisions.get(1).watched().isAllowed()).as(shadow).isFalse();
			assertThat(decisions.get(2).watched()).isNull();
			assertThat(limiter.usage(shadow, watched).get(0).used()).isEqualTo(1);
		}
		assertThat(otherSlots).as("shadow keys in another slot").isBetween(5, 10);
	}

	private static String sameSlot(String key) {
		for (int i = 0;; i++) {
			if (RedisKeys.slot("w" + i) == RedisKeys.slot(key)) {
				return "w" + i;
			}
		}
	}

	@Test
	void hostileKeysCannotSplitACallAcrossSlots() {
		RateLimiter limiter = RedisRateLimiter.builder(factory).build();
		Limit burst = Limit.of(2, Duration.ofSeconds(10));
		Limit sustained = Limit.of(4, Duration.ofMinutes(1));
		for (String hostile : List.of("}", "{", "{}", "a}{b", "x{y}z", "{user}", "%7B", "ü{ñ}" + "z".repeat(300))) {
			assertThat(limiter.acquire(hostile, burst, sustained).isAllowed()).as(hostile).isTrue();
			assertThat(limiter.acquire(hostile, burst, sustained).isAllowed()).as(hostile).isTrue();
			Decision third = limiter.acquire(hostile, burst, sustained);
			assertThat(third.isAllowed()).as(hostile).isFalse();
		}
	}

	@Test
	void concurrentBurstOnOneKeyAdmitsExactlyTheThreshold() throws Exception {
		RateLimiter limiter = RedisRateLimiter.builder(factory).build();
		Limit limit = Limit.of(50, Duration.ofMinutes(1));
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			List<Callable<Boolean>> calls = new ArrayList<>();
			for (int i = 0; i < 400; i++) {
				calls.add(() -> limiter.acquire("cluster-burst", limit).isAllowed());
			}
			int admitted = 0;
			for (Future<Boolean> future : executor.invokeAll(calls)) {
				admitted += future.get() ? 1 : 0;
			}
			assertThat(admitted).isEqualTo(50);
		}
		finally {
			executor.shutdownNow();
		}
	}

}
