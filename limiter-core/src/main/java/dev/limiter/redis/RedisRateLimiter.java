package dev.limiter.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.AbstractRateLimiter;
import dev.limiter.Decision;
import dev.limiter.Limit;

/**
 * A {@link dev.limiter.RateLimiter} that keeps an exact sliding-window log per key and
 * limit in Redis sorted sets, decided by one atomic Lua script per call.
 * <p>
 * Time is the Redis server's clock by default, so instances whose clocks disagree still
 * agree on the window; {@link Builder#clock(Clock)} switches to the application's clock
 * for managed Redis services that refuse {@code TIME} in scripts. Only admitted calls are
 * recorded unless {@link Builder#countRejected(boolean)} is set, so a client that keeps
 * calling gets back in as soon as its old calls leave the window.
 * <p>
 * The script runs through Spring Data Redis, which sends {@code EVALSHA} and falls back
 * to {@code EVAL} when Redis answers {@code NOSCRIPT} (after a restart, failover or
 * {@code SCRIPT FLUSH}).
 */
public final class RedisRateLimiter extends AbstractRateLimiter {

	/** The key prefix used when none is configured. */
	public static final String DEFAULT_KEY_PREFIX = "limiter:";

	private static final RedisScript<List<Long>> SCRIPT = loadScript();

	private static final String SERVER_TIME = "-1";

	private final RedisOperations<String, String> redis;

	private final String keyPrefix;

	private final Clock clock;

	private final String countRejected;

	private final String tokenPrefix;

	private final AtomicLong sequence = new AtomicLong();

	private RedisRateLimiter(Builder builder) {
		this.redis = builder.redis;
		this.keyPrefix = builder.keyPrefix;
		this.clock = builder.clock;
		this.countRejected = builder.countRejected ? "1" : "0";
		// Members must be unique across instances and calls: a random instance part and a
		// counter, never a timestamp that two calls can share.
		this.tokenPrefix = Long.toString(ThreadLocalRandom.current().nextLong() >>> 16, 36) + "-";
	}

	/**
	 * Start building a limiter on a connection factory.
	 * @param connectionFactory the Redis connection factory
	 * @return the builder
	 */
	public static Builder builder(RedisConnectionFactory connectionFactory) {
		if (connectionFactory == null) {
			throw new IllegalArgumentException("connectionFactory must not be null");
		}
		StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
		template.afterPropertiesSet();
		return new Builder(template);
	}

	/**
	 * Start building a limiter on a template whose keys and values are strings.
	 * @param redis the template
	 * @return the builder
	 */
	public static Builder builder(RedisOperations<String, String> redis) {
		if (redis == null) {
			throw new IllegalArgumentException("redis must not be null");
		}
		return new Builder(redis);
	}

	/**
	 * Return the script every call runs, built once so that its SHA-1 is computed once.
	 * @return the sliding-window script
	 */
	public static RedisScript<List<Long>> script() {
		return SCRIPT;
	}

	@Override
	protected Decision doAcquire(String key, long permits, List<Limit> limits) {
		int size = limits.size();
		List<String> keys = new ArrayList<>(size);
		Object[] args = new Object[4 + 2 * size];
		args[0] = Long.toString(permits);
		args[1] = (this.clock != null) ? Long.toString(epochMicros(this.clock)) : SERVER_TIME;
		args[2] = this.countRejected;
		args[3] = this.tokenPrefix + Long.toString(this.sequence.incrementAndGet(), 36);
		for (int i = 0; i < size; i++) {
			Limit limit = limits.get(i);
			keys.add(RedisKeys.key(this.keyPrefix, key, limit));
			args[4 + 2 * i] = Long.toString(limit.threshold());
			args[5 + 2 * i] = Long.toString(limit.periodMicros());
		}
		List<Long> result = this.redis.execute(SCRIPT, keys, args);
		if (result == null || result.size() != 6) {
			throw new IllegalStateException("Unexpected reply from the rate-limit script: " + result);
		}
		Limit decider = limits.get(result.get(1).intValue() - 1);
		long remaining = result.get(2);
		Duration resetAfter = ofMicros(result.get(4));
		long now = result.get(5);
		if (result.get(0) == 1L) {
			return Decision.allowed(decider, remaining, resetAfter, now);
		}
		return Decision.rejected(decider, remaining, ofMicros(result.get(3)), resetAfter, now);
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Long>> loadScript() {
		DefaultRedisScript script = new DefaultRedisScript<>();
		script.setLocation(new ClassPathResource("META-INF/scripts/sliding_window_log.lua"));
		script.setResultType(List.class);
		// Read the source and compute the SHA-1 now rather than on the first call.
		script.getSha1();
		return script;
	}

	/**
	 * Builds a {@link RedisRateLimiter}.
	 */
	public static final class Builder {

		private final RedisOperations<String, String> redis;

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private Clock clock;

		private boolean countRejected;

		private Builder(RedisOperations<String, String> redis) {
			this.redis = redis;
		}

		/**
		 * Set the prefix of every Redis key.
		 * @param keyPrefix the prefix, such as {@code limiter:}; may be empty
		 * @return this builder
		 */
		public Builder keyPrefix(String keyPrefix) {
			if (keyPrefix == null || keyPrefix.contains("{") || keyPrefix.contains("}")) {
				throw new IllegalArgumentException(
						"keyPrefix must not be null or contain '{' or '}', was " + keyPrefix);
			}
			this.keyPrefix = keyPrefix;
			return this;
		}

		/**
		 * Use the application's clock instead of the Redis server's. Instances whose
		 * clocks disagree then disagree on the window by as much; use it only where Redis
		 * refuses {@code TIME} in scripts.
		 * @param clock the clock, or {@code null} for the Redis server's clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * Record rejected calls too, so that a client that keeps calling stays locked out
		 * (anti-abuse semantics).
		 * @param countRejected whether rejected calls are recorded
		 * @return this builder
		 */
		public Builder countRejected(boolean countRejected) {
			this.countRejected = countRejected;
			return this;
		}

		/**
		 * Build the limiter.
		 * @return the limiter
		 */
		public RedisRateLimiter build() {
			return new RedisRateLimiter(this);
		}

	}

}
