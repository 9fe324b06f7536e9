package dev.limiter.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.cache.RejectionCachingRateLimiter;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.OverrideStore;
import dev.limiter.internal.redis.LimiterConnectionFactories;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.internal.store.RedisHolds;
import dev.limiter.internal.store.RedisOverrideStore;
import dev.limiter.internal.store.RedisSubscription;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.redis.RedisRateLimiter;
import dev.limiter.resilience.ResilientRateLimiter;

/**
 * The Redis store, when the application has one {@link RedisConnectionFactory} and
 * {@code limiter.store} is not {@code memory}. It is layered, outermost first:
 * {@link ResilientRateLimiter} (circuit breaker and failure policies),
 * {@link RejectionCachingRateLimiter} (rejections cached until their retry-after, unless
 * disabled or rejected calls are counted), then {@link RedisRateLimiter} over the
 * limiter's own connection ({@link LimiterRedisConnection}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@Conditional(StoreCondition.NotMemory.class)
final class RedisStoreConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(LimiterAutoConfiguration.class);

	/** How long a starting application waits for a Redis that is slow to answer. */
	private static final Duration STARTUP_WAIT = Duration.ofSeconds(5);

	private static final Duration RETRY_PAUSE = Duration.ofMillis(100);

	// How long an application that started without an answer from Redis keeps asking,
	// to say once when Redis answered after all.
	private static final Duration STARTUP_WATCH = Duration.ofMinutes(10);

	private static final Duration WATCH_PAUSE = Duration.ofSeconds(1);

	// Whether Redis answered at startup: the line that says where limits are counted is
	// true when it is written.
	private volatile boolean answeredAtStartup = true;

	private static final Limit WARM_UP_LIMIT = Limit.of(1, Duration.ofMillis(1));

	// Declared before the limiter, so that only an application's RateLimiter makes it
	// back off.
	@Bean
	@ConditionalOnMissingBean({ RateLimiter.class, LimiterRedisConnection.class })
	LimiterRedisConnection limiterRedisConnection(RedisConnectionFactory connectionFactory,
			LimiterProperties properties) {
		Duration timeout = properties.getTimeout();
		LimiterRedisConnection connection;
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			connection = LimiterRedisConnection.dedicated(LimiterConnectionFactories.dedicated(lettuce, timeout),
					timeout);
		}
		else {
			logger.warn("Limiter uses the application's {} as it is: limiter.timeout ({} ms) does not apply, a "
					+ "call waits on Redis as long as that factory's own timeout; use Lettuce for a bounded wait",
					connectionFactory.getClass().getSimpleName(), timeout.toMillis());
			connection = LimiterRedisConnection.shared(connectionFactory);
		}
		this.answeredAtStartup = warmUp(connection, properties);
		if (!this.answeredAtStartup) {
			connection.closeOnDestroy(StartupWatch.start(connection, STARTUP_WATCH, WATCH_PAUSE));
		}
		return connection;
	}

	// Overrides are shared through the same Redis as the counts, and every instance
	// applies them, whether or not it exposes the endpoint that sets them.
	@Bean
	@ConditionalOnMissingBean(OverrideStore.class)
	RedisOverrideStore limiterOverrideStore(RedisConnectionFactory connectionFactory, LimiterProperties properties,
			LimitResolver limitResolver, ObjectProvider<LimiterRedisConnection> limiterConnection) {
		return new RedisOverrideStore(connectionFactory,
				LimiterRedisConnection.bounded(limiterConnection.getIfAvailable(), connectionFactory),
				properties.getKeyPrefix(), limitResolver.overrides());
	}

	// The holds that upstreams ask for stop every instance at once.
	@Bean
	@Conditional(OnClientsCondition.class)
	RedisSubscription limiterHoldSubscription(RedisConnectionFactory connectionFactory, LimiterProperties properties,
			OutgoingQuotas quotas) {
		RedisHolds holds = new RedisHolds(connectionFactory, properties.getKeyPrefix(), quotas);
		quotas.setHolds(holds);
		List<String> clients = quotas.quotas().stream().map(OutgoingQuota::name).toList();
		holds.readKept(clients);
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(connectionFactory);
		container.addMessageListener(holds, holds.getChannel());
		// a hold another instance learned while this one subscribed was published
		// unheard, and kept: read it once the subscription listens
		return new RedisSubscription(container, "holds", () -> holds.readKept(clients));
	}

	@Bean
	@ConditionalOnBean(RedisOverrideStore.class)
	RedisSubscription limiterOverrideSubscription(RedisConnectionFactory connectionFactory,
			RedisOverrideStore overrideStore) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(connectionFactory);
		container.addMessageListener(overrideStore, overrideStore.getChannel());
		// an override set while this instance subscribed was announced unheard
		return new RedisSubscription(container, "overrides", overrideStore::reread);
	}

	@Bean
	@ConditionalOnMissingBean(RateLimiter.class)
	ResilientRateLimiter rateLimiter(LimiterRedisConnection connection, LimiterProperties properties,
			ObjectProvider<ResilientRateLimiter.DegradedListener> degradedListeners) {
		RedisRateLimiter.Builder builder = RedisRateLimiter.builder(connection.getConnectionFactory())
			.countRejected(properties.isCountRejected())
			.keyPrefix(properties.getKeyPrefix());
		if (properties.getClock() == LimiterProperties.ClockSource.CLIENT) {
			builder.clock(Clock.systemUTC());
		}
		RedisRateLimiter redis = builder.build();
		connection.closeOnDestroy(redis);
		RateLimiter store = redis;
		warmUp(store);
		// Inside the resilience layer: a decision taken by a failure policy never
		// reaches the cache, so an outage cannot leave callers blocked.
		if (properties.getRejectionCache().isEnabled()) {
			store = RejectionCachingRateLimiter.wrap(store)
				.countRejected(properties.isCountRejected())
				.maximumSize(properties.getRejectionCache().getMaximumSize())
				.build();
		}
		ResilientRateLimiter limiter = new ResilientRateLimiter(store, properties.getFailure().getPolicy(),
				new InMemoryRateLimiter(Clock.systemUTC(), properties.isCountRejected(),
						properties.getMemory().getMaximumKeys()),
				properties.getBreaker().getFailureThreshold(), properties.getBreaker().getOpenDuration(),
				degradedListener(degradedListeners.orderedStream().toList()));
		logger.info(
				"Limiter stores rate limits in Redis at {}{} ({} clock): the application has a RedisConnectionFactory; "
						+ "when Redis does not answer within {}, {} (limiter.failure.policy={})",
				connection.getAddress(), this.answeredAtStartup ? "" : " once it answers (not yet: see above)",
				(properties.getClock() == LimiterProperties.ClockSource.CLIENT) ? "application" : "Redis server",
				(connection.getTimeout() != null) ? connection.getTimeout().toMillis() + " ms"
						: "the connection factory's timeout",
				describe(properties.getFailure().getPolicy()), text(properties.getFailure().getPolicy()));
		return limiter;
	}

	private static ResilientRateLimiter.DegradedListener degradedListener(
			List<ResilientRateLimiter.DegradedListener> listeners) {
		if (listeners.isEmpty()) {
			return null;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		return (decision, policy) -> listeners.forEach((listener) -> listener.degraded(decision, policy));
	}

	/** Return whether Redis answered before the start went on. */
	private static boolean warmUp(LimiterRedisConnection connection, LimiterProperties properties) {
		// Connect now rather than on the first requests, where nobody waits. Slowness
		// is not absence: several JVMs starting on a few cores can take seconds to
		// connect and read a PING, so a Redis that does not refuse the connection is
		// given a few seconds. An absent Redis must not stop the application: the
		// failure policy covers it until Redis appears.
		long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
		RuntimeException failure;
		while (true) {
			try {
				connection.ping();
				warnIfEvicting(connection);
				return true;
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
			String rejected = authenticationFailed(failure);
			if (rejected != null) {
				// Not an outage that the failure policy should cover: every call would be
				// decided without Redis, forever.
				throw new LimiterSetupException(
						"Limiter cannot use Redis: it refused the application's credentials (" + rejected + ")",
						"Set spring.data.redis.password (and spring.data.redis.username for an ACL user) to "
								+ "credentials that Redis accepts.",
						failure);
			}
			if (refused(failure) || tlsFailed(failure) != null || System.nanoTime() >= deadline) {
				break;
			}
			// A pause between attempts: a slow Redis is not helped by a tight loop.
			LockSupport.parkNanos(RETRY_PAUSE.toNanos());
		}
		FailurePolicy policy = properties.getFailure().getPolicy();
		String tls = tlsFailed(failure);
		if (tls != null) {
			// Retrying will not help and silence is not the cause: name the certificate.
			logger.warn("Limiter cannot reach Redis at startup, the TLS handshake failed ({}): {} until Redis "
					+ "answers at {} (limiter.failure.policy={}). Make the application trust the certificate "
					+ "Redis presents: set spring.data.redis.ssl.bundle to an SSL bundle whose trust store holds "
					+ "the CA that signed it (spring.ssl.bundle.pem.<bundle>.truststore.certificate), and check "
					+ "that the port is Redis's TLS port", tls, describe(policy), connection.getAddress(),
					text(policy));
		}
		else if (refused(failure)) {
			logger.warn(
					"Limiter cannot reach Redis at startup, the connection was refused ({}): {} until Redis "
							+ "answers at {} (limiter.failure.policy={})",
					failure.getMessage(), describe(policy), connection.getAddress(), text(policy));
		}
		else {
			logger.warn(
					"Limiter got no answer from Redis within {} s at startup ({}): {} until Redis answers at {} "
							+ "(limiter.failure.policy={})",
					STARTUP_WAIT.toSeconds(), failure.getMessage(), describe(policy), connection.getAddress(),
					text(policy));
		}
		return false;
	}

	private static void warnIfEvicting(LimiterRedisConnection connection) {
		LimiterRedisConnection.Eviction eviction = connection.eviction();
		if (eviction != null && eviction.dropsKeys()) {
			logger.warn("Redis at {} {}", connection.getAddress(), eviction.problem());
		}
	}

	private static void warmUp(RateLimiter store) {
		// Run the script once before the first request, where nobody waits: it loads
		// the script into Redis and warms the call path. The key holds one entry for
		// a millisecond. One attempt: a slow answer is waited for by the runner
		// itself, and an absent Redis was reported by the connection's warm-up.
		try {
			store.acquire("limiter:warm-up", WARM_UP_LIMIT);
		}
		catch (RuntimeException ex) {
			String denied = permissionDenied(ex);
			if (denied != null) {
				// Not an outage that the failure policy should cover: every call
				// would be decided without Redis, forever.
				throw new LimiterSetupException(
						"Limiter cannot run its rate-limit script: the Redis user may not run scripts (" + denied + ")",
						"Grant the Redis user the scripting commands (ACL SETUSER <user> +evalsha +eval, or "
								+ "+@scripting), or connect as a user that has them.",
						ex);
			}
			logger.debug("Limiter warm-up call failed", ex);
		}
	}

	/**
	 * Return whether a connection was refused, or its host does not resolve: Redis is not
	 * there, and waiting will not bring it. A connect timeout (Netty's extends
	 * {@code ConnectException}) is slowness, not absence.
	 */
	static boolean refused(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getClass().getName().equals("io.netty.channel.ConnectTimeoutException")) {
				return false;
			}
			if (cause instanceof java.net.ConnectException || cause instanceof java.net.UnknownHostException) {
				return true;
			}
		}
		return false;
	}

	static String authenticationFailed(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH")
					|| message.contains("invalid username-password pair") || message.startsWith("ERR AUTH"))) {
				return message;
			}
		}
		return null;
	}

	/**
	 * Return what a failed TLS handshake with Redis said, or {@code null} when the
	 * failure is another one: an untrusted certificate, a host name it does not name, a
	 * TLS client on a plain port.
	 */
	static String tlsFailed(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof javax.net.ssl.SSLException) {
				return cause.getClass().getSimpleName() + ": " + cause.getMessage();
			}
		}
		return null;
	}

	private static String permissionDenied(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().startsWith("NOPERM")) {
				return cause.getMessage();
			}
		}
		return null;
	}

	/** Say in plain words what limits do while Redis cannot answer. */
	private static String describe(FailurePolicy policy) {
		return switch (policy) {
			case FAIL_OPEN -> "calls are admitted without any limit";
			case FAIL_CLOSED -> "limited calls are rejected";
			case LOCAL -> "limits are counted in memory on this instance";
		};
	}

	private static String text(FailurePolicy policy) {
		return policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
	}

}
