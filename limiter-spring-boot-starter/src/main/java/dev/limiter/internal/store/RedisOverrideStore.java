package dev.limiter.internal.store;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;

import dev.limiter.internal.limits.LimitOverrides;
import dev.limiter.internal.limits.LimitOverrides.NamedOverride;
import dev.limiter.internal.limits.LimitOverrides.Numbers;
import dev.limiter.internal.limits.OverrideStore;

/**
 * Keeps the overrides in Redis, so that every instance applies them and a restart keeps
 * them: a hash {@code <key prefix>overrides} (a field per named limit, {@code n:<name>},
 * and per caller, {@code c:<name>:<key>}), and a message on the channel of the same name
 * after each change. Each instance holds a copy ({@link LimitOverrides}) that calls read
 * without a round trip; it reads the hash again on every message, and every few seconds
 * besides, so that a message missed while disconnected is caught up.
 */
public final class RedisOverrideStore implements OverrideStore, MessageListener, SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(RedisOverrideStore.class);

	/** How often the hash is read again when no message came. */
	static final Duration REREAD = Duration.ofSeconds(5);

	private final RedisConnectionFactory connectionFactory;

	private final RedisConnectionFactory writeFactory;

	private final byte[] hash;

	private final ChannelTopic channel;

	private final LimitOverrides overrides;

	private final Object lock = new Object();

	private final RepeatedTask repeated = new RepeatedTask("limiter-overrides", Duration.ZERO, REREAD, this::reread);

	private boolean readFailureLogged;

	/**
	 * Create the store.
	 * @param connectionFactory the application's connection factory
	 * @param keyPrefix the limiter's key prefix, which names the hash and the channel
	 * @param overrides this instance's copy, kept current
	 */
	public RedisOverrideStore(RedisConnectionFactory connectionFactory, String keyPrefix, LimitOverrides overrides) {
		this(connectionFactory, connectionFactory, keyPrefix, overrides);
	}

	/**
	 * Create the store.
	 * @param connectionFactory the application's connection factory, for the reads that
	 * run in the background
	 * @param writeFactory the factory an operator's change is written through: the
	 * limiter's own, whose timeout bounds how long the endpoint waits on a Redis that is
	 * gone or stalled (the application's may wait a minute)
	 * @param keyPrefix the limiter's key prefix, which names the hash and the channel
	 * @param overrides this instance's copy, kept current
	 */
	public RedisOverrideStore(RedisConnectionFactory connectionFactory, RedisConnectionFactory writeFactory,
			String keyPrefix, LimitOverrides overrides) {
		this.connectionFactory = connectionFactory;
		this.writeFactory = writeFactory;
		this.hash = bytes(keyPrefix + "overrides");
		this.channel = new ChannelTopic(keyPrefix + "overrides");
		this.overrides = overrides;
	}

	/**
	 * Return the channel on which changes are announced.
	 * @return the channel
	 */
	public ChannelTopic getChannel() {
		return this.channel;
	}

	@Override
	public void setNamed(String name, NamedOverride override) {
		write("n:" + encode(name), override.isEmpty() ? null : encode(override));
	}

	@Override
	public void setCaller(String name, String key, Numbers numbers) {
		write("c:" + encode(name) + ":" + key, numbers.isEmpty() ? null : encode(numbers, ""));
	}

	@Override
	public boolean isShared() {
		return true;
	}

	// A failed write throws, so that the endpoint says so; a failed announcement does
	// not:
	// every instance reads the hash again within REREAD.
	private void write(String field, String value) {
		try (RedisConnection connection = this.writeFactory.getConnection()) {
			if (value != null) {
				connection.hashCommands().hSet(this.hash, bytes(field), bytes(value));
			}
			else {
				connection.hashCommands().hDel(this.hash, bytes(field));
			}
			try {
				connection.publish(bytes(this.channel.getTopic()), bytes(field));
			}
			catch (RuntimeException ex) {
				logger.debug("Limiter could not announce the change of override '{}'; every instance reads the "
						+ "overrides again within {}", field, REREAD, ex);
			}
		}
		reread(this.writeFactory);
	}

	@Override
	public void onMessage(Message message, byte[] pattern) {
		reread();
	}

	/**
	 * Read every override from Redis into this instance's copy; while Redis cannot
	 * answer, the copy stays as it was.
	 */
	public void reread() {
		reread(this.connectionFactory);
	}

	private void reread(RedisConnectionFactory factory) {
		synchronized (this.lock) {
			Map<byte[], byte[]> entries;
			try (RedisConnection connection = factory.getConnection()) {
				entries = connection.hashCommands().hGetAll(this.hash);
				this.readFailureLogged = false;
			}
			catch (RuntimeException ex) {
				if (!this.readFailureLogged) {
					logger.warn("Limiter cannot read the overrides from Redis ({}); the ones it read last apply "
							+ "until it can", ex.getMessage());
					this.readFailureLogged = true;
				}
				return;
			}
			Map<String, NamedOverride> named = new LinkedHashMap<>();
			Map<String, Map<String, Numbers>> callers = new LinkedHashMap<>();
			if (entries != null) {
				entries.forEach((field, value) -> read(new String(field, StandardCharsets.UTF_8),
						new String(value, StandardCharsets.UTF_8), named, callers));
			}
			if (!named.equals(this.overrides.named()) || !callers.equals(this.overrides.callers())) {
				this.overrides.replace(named, callers);
			}
		}
	}

	private static void read(String field, String value, Map<String, NamedOverride> named,
			Map<String, Map<String, Numbers>> callers) {
		try {
			if (field.startsWith("n:")) {
				named.put(decode(field.substring(2)), decodeNamed(value));
			}
			else if (field.startsWith("c:")) {
				int colon = field.indexOf(':', 2);
				callers.computeIfAbsent(decode(field.substring(2, colon)), (name) -> new LinkedHashMap<>())
					.put(field.substring(colon + 1), decodeNumbers(value, ""));
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Limiter ignores the override '{}' in Redis, which it cannot read: {}", field, ex.getMessage());
		}
	}

	@Override
	public void start() {
		this.repeated.start();
	}

	@Override
	public void stop() {
		this.repeated.stop();
	}

	@Override
	public boolean isRunning() {
		return this.repeated.isRunning();
	}

	// Lines of name=value; plans as plans.<encoded plan>.threshold and .period.
	private static String encode(NamedOverride override) {
		StringBuilder text = new StringBuilder(encode(override.numbers(), ""));
		override.plans().forEach((plan, numbers) -> text.append(encode(numbers, "plans." + encode(plan) + ".")));
		return text.toString();
	}

	private static String encode(Numbers numbers, String prefix) {
		StringBuilder text = new StringBuilder();
		if (numbers.threshold() != null) {
			text.append(prefix).append("threshold=").append(numbers.threshold()).append('\n');
		}
		if (numbers.period() != null) {
			text.append(prefix).append("period=").append(numbers.period().toMillis()).append('\n');
		}
		return text.toString();
	}

	private static NamedOverride decodeNamed(String value) {
		Map<String, Numbers> plans = new LinkedHashMap<>();
		for (String line : value.split("\n")) {
			if (line.startsWith("plans.")) {
				int dot = line.indexOf('.', 6);
				plans.merge(decode(line.substring(6, dot)), decodeNumbers(line.substring(dot + 1), ""),
						RedisOverrideStore::merged);
			}
		}
		return new NamedOverride(decodeNumbers(value, ""), plans);
	}

	private static Numbers decodeNumbers(String value, String prefix) {
		Long threshold = null;
		Duration period = null;
		for (String line : value.split("\n")) {
			if (line.startsWith(prefix + "threshold=")) {
				threshold = Long.parseLong(line.substring(prefix.length() + 10));
			}
			else if (line.startsWith(prefix + "period=")) {
				period = Duration.ofMillis(Long.parseLong(line.substring(prefix.length() + 7)));
			}
		}
		return new Numbers(threshold, period);
	}

	private static Numbers merged(Numbers first, Numbers second) {
		return new Numbers((second.threshold() != null) ? second.threshold() : first.threshold(),
				(second.period() != null) ? second.period() : first.period());
	}

	private static String encode(String text) {
		return URLEncoder.encode(text, StandardCharsets.UTF_8);
	}

	private static String decode(String text) {
		return URLDecoder.decode(text, StandardCharsets.UTF_8);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
