package dev.limiter.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.cache.RejectionCachingRateLimiter;
import dev.limiter.internal.redis.RedisKeys;
import dev.limiter.redis.RedisRateLimiter;

/**
 * The implementations measured side by side, each over the same shared connection.
 */
public enum Contender {

	/** The floor: one plain {@code INCR}. */
	INCR("incr"),

	/** The script floor: {@code EVALSHA} of {@code return 1} with one key. */
	EVALSHA("evalsha"),

	/** Limiter's sliding-window log, {@link RedisRateLimiter}. */
	LIMITER("limiter"),

	/** Limiter behind the local rejection cache. */
	LIMITER_CACHED("limiter-cached"),

	/** Limiter's sliding buckets, 60 slices of the window. */
	LIMITER_BUCKETS("limiter-buckets"),

	/** Limiter's token bucket (GCRA), the same bandwidth as the token-bucket peers. */
	LIMITER_TOKEN("limiter-token"),

	/** Limiter's calendar windows: the same threshold per calendar day in Berlin. */
	LIMITER_CALENDAR("limiter-calendar"),

	/**
	 * A prototype, not Limiter: the same script through Lettuce directly with pre-encoded
	 * arguments, to measure what Spring Data Redis's script path costs.
	 */
	LIMITER_LEAN("limiter-lean"),

	/**
	 * Bucket4j's Lettuce backend (compare-and-swap), greedy refill of the same bandwidth.
	 */
	BUCKET4J("bucket4j"),

	/**
	 * Spring Cloud Gateway's token-bucket script, loaded from its published jar, called
	 * the way its {@code RedisRateLimiter} calls it.
	 */
	SCG("scg");

	/** Spring Cloud Gateway's script, read from its own jar on the classpath. */
	static final String SCG_SCRIPT = "META-INF/scripts/request_rate_limiter.lua";

	private static final RedisScript<Long> TRIVIAL = RedisScript.of("return 1", Long.class);

	private final String id;

	Contender(String id) {
		this.id = id;
	}

	public static Contender of(String id) {
		for (Contender contender : values()) {
			if (contender.id.equals(id)) {
				return contender;
			}
		}
		throw new IllegalArgumentException("Unknown contender " + id);
	}

	public String id() {
		return this.id;
	}

	/**
	 * A contender bound to a limit: one decision per call.
	 */
	public interface Subject {

		/**
		 * Decide one call.
		 * @param key the caller key
		 * @return 0 when rejected; when admitted, the Redis server time of the decision
		 * in microseconds where the implementation reports it, else 1
		 */
		long acquire(String key);

		/**
		 * Return the Redis keys that hold the state of a caller key.
		 * @param key the caller key
		 * @return the Redis keys
		 */
		List<String> redisKeys(String key);

	}

	/**
	 * Bind this contender to a limit on a Redis set-up.
	 * @param redis the shared connection
	 * @param limit the limit every key gets
	 * @return the subject
	 */
	public Subject create(BenchRedis redis, Limit limit) {
		StringRedisTemplate template = redis.template();
		switch (this) {
			case INCR:
				return subject((key) -> {
					template.opsForValue().increment(key);
					return 1;
				}, List::of);
			case EVALSHA:
				return subject((key) -> template.execute(TRIVIAL, List.of(key)), List::of);
			case LIMITER_BUCKETS:
			case LIMITER_TOKEN:
			case LIMITER_CALENDAR: {
				Limit counted = switch (this) {
					case LIMITER_BUCKETS -> limit.withAlgorithm(Algorithm.SLIDING_BUCKETS);
					case LIMITER_TOKEN -> limit.withAlgorithm(Algorithm.TOKEN_BUCKET);
					default ->
						limit.withCalendar(java.time.temporal.ChronoUnit.DAYS, java.time.ZoneId.of("Europe/Berlin"));
				};
				RateLimiter limiter = RedisRateLimiter.builder(redis.nativeCommands(), Duration.ofSeconds(10)).build();
				List<Limit> limits = List.of(counted);
				return subject((key) -> {
					Decision decision = limiter.acquire(key, 1, limits);
					return decision.isAllowed() ? decision.decidedAtMicros() : 0;
				}, (key) -> List.of(RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, key, counted)));
			}
			case LIMITER:
			case LIMITER_CACHED: {
				// The same shared connection as every other contender.
				RateLimiter limiter = RedisRateLimiter.builder(redis.nativeCommands(), Duration.ofSeconds(10)).build();
				if (this == LIMITER_CACHED) {
					limiter = RejectionCachingRateLimiter.wrap(limiter).build();
				}
				RateLimiter decider = limiter;
				List<Limit> limits = List.of(limit);
				return subject((key) -> {
					Decision decision = decider.acquire(key, 1, limits);
					return decision.isAllowed() ? decision.decidedAtMicros() : 0;
				}, (key) -> List.of(RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, key, limit)));
			}
			case LIMITER_LEAN: {
				LeanRedisLimiter lean = new LeanRedisLimiter(redis.nativeCommands(), limit);
				return subject((key) -> {
					Decision decision = lean.acquire(key);
					return decision.isAllowed() ? decision.decidedAtMicros() : 0;
				}, (key) -> List.of(RedisKeys.key(RedisRateLimiter.DEFAULT_KEY_PREFIX, key, limit)));
			}
			case BUCKET4J: {
				ProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(redis.nativeCommands())
					.expirationAfterWrite(
							ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
					.build();
				BucketConfiguration configuration = BucketConfiguration.builder()
					.addLimit((bandwidth) -> bandwidth.capacity(limit.threshold())
						.refillGreedy(limit.threshold(), limit.period()))
					.build();
				Supplier<BucketConfiguration> supplier = () -> configuration;
				return subject(
						(key) -> buckets.builder().build(key.getBytes(StandardCharsets.UTF_8), supplier).tryConsume(1)
								? 1 : 0,
						List::of);
			}
			case SCG: {
				RedisScript<List<Long>> script = scgScript();
				// Same arguments as its RedisRateLimiter: rate per second, burst, "" for
				// the server clock, requested tokens.
				String rate = rate(limit);
				String capacity = Long.toString(limit.threshold());
				return subject((key) -> {
					List<Long> result = template.execute(script, scgKeys(key), rate, capacity, "", "1");
					return (result.get(0) == 1L) ? 1 : 0;
				}, Contender::scgKeys);
			}
			default:
				throw new IllegalStateException();
		}
	}

	static String rate(Limit limit) {
		double perSecond = limit.threshold() * 1_000.0 / limit.period().toMillis();
		return (perSecond == Math.rint(perSecond)) ? Long.toString((long) perSecond) : Double.toString(perSecond);
	}

	static List<String> scgKeys(String id) {
		// As Spring Cloud Gateway builds them on every call.
		String prefix = "request_rate_limiter.{" + id;
		return Arrays.asList(prefix + "}.tokens", prefix + "}.timestamp");
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Long>> scgScript() {
		ClassPathResource resource = new ClassPathResource(SCG_SCRIPT);
		if (!resource.exists()) {
			throw new IllegalStateException(SCG_SCRIPT + " is not on the classpath (spring-cloud-gateway-server)");
		}
		DefaultRedisScript script = new DefaultRedisScript<>();
		script.setLocation(resource);
		script.setResultType(List.class);
		script.getSha1();
		return script;
	}

	private static Subject subject(java.util.function.ToLongFunction<String> decide,
			java.util.function.Function<String, List<String>> redisKeys) {
		return new Subject() {

			@Override
			public long acquire(String key) {
				return decide.applyAsLong(key);
			}

			@Override
			public List<String> redisKeys(String key) {
				return redisKeys.apply(key);
			}

		};
	}

}
