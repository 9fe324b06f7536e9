package dev.limiter.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
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
 * With a Lettuce connection factory the script is sent on Lettuce's asynchronous
 * commands, with {@code EVALSHA}, falling back to {@code EVAL} when Redis answers
 * {@code NOSCRIPT} (after a restart, failover or {@code SCRIPT FLUSH}); other factories
 * run it through Spring Data Redis the same way.
 */
public final class RedisRateLimiter extends AbstractRateLimiter implements AutoCloseable {

	/** The key prefix used when none is configured. */
	public static final String DEFAULT_KEY_PREFIX = "limiter:";

	private static final RedisScript<List<Long>> SCRIPT = loadScript();

	private static final byte[] SERVER_TIME = ascii(-1);

	private static final byte[] ONE = ascii(1);

	private final ScriptRunner runner;

	private final String keyPrefix;

	private final Clock clock;

	private final byte[] countRejected;

	private final String tokenPrefix;

	private final AtomicLong sequence = new AtomicLong();

	private RedisRateLimiter(Builder builder) {
		this.runner = builder.runner;
		this.keyPrefix = builder.keyPrefix;
		this.clock = builder.clock;
		this.countRejected = ascii(builder.countRejected ? 1 : 0);
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
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return new Builder(new ScriptRunner.Lettuce(SCRIPT, lettuce));
		}
		StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
		template.afterPropertiesSet();
		return new Builder(new ScriptRunner.Template(SCRIPT, template));
	}

	/**
	 * Start building a limiter on a Lettuce connection that the caller owns and may share
	 * with other work; {@link #close()} leaves it open.
	 * @param commands the asynchronous commands of a connection with a byte-array codec
	 * @param timeout the longest a call waits for the script
	 * @return the builder
	 */
	public static Builder builder(RedisScriptingAsyncCommands<byte[], byte[]> commands, Duration timeout) {
		if (commands == null) {
			throw new IllegalArgumentException("commands must not be null");
		}
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("timeout must be positive, was " + timeout);
		}
		return new Builder(new ScriptRunner.Lettuce(SCRIPT, commands, timeout));
	}

	/**
	 * Start building a limiter that runs its script through a Spring Data Redis template,
	 * on whatever connection factory the template has.
	 * @param redis the template
	 * @return the builder
	 */
	public static Builder builder(RedisOperations<?, ?> redis) {
		if (redis == null) {
			throw new IllegalArgumentException("redis must not be null");
		}
		return new Builder(new ScriptRunner.Template(SCRIPT, redis));
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
		byte[][] keys = new byte[size][];
		byte[][] args = new byte[4 + 2 * size][];
		args[0] = (permits == 1) ? ONE : ascii(permits);
		args[1] = (this.clock != null) ? ascii(epochMicros(this.clock)) : SERVER_TIME;
		args[2] = this.countRejected;
		args[3] = (this.tokenPrefix + Long.toString(this.sequence.incrementAndGet(), 36))
			.getBytes(StandardCharsets.US_ASCII);
		for (int i = 0; i < size; i++) {
			Limit limit = limits.get(i);
			keys[i] = RedisKeys.key(this.keyPrefix, key, limit).getBytes(StandardCharsets.UTF_8);
			args[4 + 2 * i] = ascii(limit.threshold());
			args[5 + 2 * i] = ascii(limit.periodMicros());
		}
		List<Long> result = this.runner.run(keys, args);
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

	/**
	 * Close the connection this limiter opened, if any; a connection factory's own
	 * connections are left to the factory.
	 */
	@Override
	public void close() {
		this.runner.close();
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Long>> loadScript() {
		// Read once into a static text: a script with a location checks on every
		// getSha1()
		// whether the resource changed, which inside a jar costs kilobytes per call.
		String source;
		try (InputStream in = new ClassPathResource("META-INF/scripts/sliding_window_log.lua").getInputStream()) {
			source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the rate-limit script", ex);
		}
		DefaultRedisScript script = new DefaultRedisScript<>(source, List.class);
		script.getSha1();
		return script;
	}

	/**
	 * Builds a {@link RedisRateLimiter}.
	 */
	public static final class Builder {

		private final ScriptRunner runner;

		private String keyPrefix = DEFAULT_KEY_PREFIX;

		private Clock clock;

		private boolean countRejected;

		private Builder(ScriptRunner runner) {
			this.runner = runner;
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
