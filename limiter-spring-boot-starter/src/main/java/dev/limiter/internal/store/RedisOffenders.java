package dev.limiter.internal.store;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.limiter.internal.offenders.OffenderRanking;
import dev.limiter.internal.offenders.TopOffenders;

/**
 * Every instance's callers rejected most, together: each instance writes its own counts
 * (a field named after the instance in the hash {@code <key prefix>offenders:<limit>})
 * every few seconds, and a ranking sums every instance's fresh counts on read. Nothing is
 * written per call; a Redis that cannot answer leaves this instance's own ranking.
 */
public final class RedisOffenders implements OffenderRanking, SmartLifecycle {

	/** How often an instance writes its counts. */
	static final Duration SHARE = Duration.ofSeconds(5);

	private static final long STALE_MILLIS = 2 * TopOffenders.WINDOW.toMillis();

	private final RedisConnectionFactory connectionFactory;

	private final RedisConnectionFactory readFactory;

	private final String keyPrefix;

	private final TopOffenders local;

	private final byte[] instance = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);

	private final RepeatedTask repeated = new RepeatedTask("limiter-offenders", SHARE, SHARE, this::share);

	/**
	 * Create the shared ranking.
	 * @param connectionFactory the application's connection factory
	 * @param keyPrefix the limiter's key prefix
	 * @param local this instance's counts
	 */
	public RedisOffenders(RedisConnectionFactory connectionFactory, String keyPrefix, TopOffenders local) {
		this(connectionFactory, keyPrefix, local, SHUTDOWN_WAIT);
	}

	/**
	 * Create the shared ranking.
	 * @param connectionFactory the application's connection factory
	 * @param keyPrefix the limiter's key prefix
	 * @param local this instance's counts
	 * @param shutdownWait the longest a shutdown waits for the last share: the
	 * application's connection may wait on a Redis that is gone for its own command
	 * timeout (Spring Boot's default is a minute)
	 */
	public RedisOffenders(RedisConnectionFactory connectionFactory, String keyPrefix, TopOffenders local,
			Duration shutdownWait) {
		this(connectionFactory, connectionFactory, keyPrefix, local, shutdownWait);
	}

	/**
	 * Create the shared ranking.
	 * @param connectionFactory the application's connection factory, for the shares that
	 * run in the background
	 * @param readFactory the factory an operator's read goes through: the limiter's own,
	 * whose timeout bounds how long the endpoint waits on a Redis that is gone or stalled
	 * @param keyPrefix the limiter's key prefix
	 * @param local this instance's counts
	 * @param shutdownWait the longest a shutdown waits for the last share
	 */
	public RedisOffenders(RedisConnectionFactory connectionFactory, RedisConnectionFactory readFactory,
			String keyPrefix, TopOffenders local, Duration shutdownWait) {
		this.connectionFactory = connectionFactory;
		this.readFactory = readFactory;
		this.keyPrefix = keyPrefix;
		this.local = local;
		this.shutdownWait = shutdownWait;
	}

	/** The longest a shutdown waits for the last share, unless told otherwise. */
	static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(1);

	private final Duration shutdownWait;

	@Override
	public List<Offender> top(String limit, int count) {
		Map<String, Long> counts = new HashMap<>(this.local.counts(limit));
		try (RedisConnection connection = this.readFactory.getConnection()) {
			Map<byte[], byte[]> instances = connection.hashCommands().hGetAll(hash(limit));
			long now = System.currentTimeMillis();
			if (instances != null) {
				instances.forEach((field, value) -> {
					if (!Arrays.equals(field, this.instance)) {
						read(new String(value, StandardCharsets.UTF_8), now, counts);
					}
				});
			}
		}
		catch (RuntimeException ex) {
			// This instance's own ranking, until Redis answers.
		}
		return TopOffenders.top(counts, count);
	}

	/**
	 * Write this instance's counts of every limit that rejected lately; also on a
	 * schedule.
	 */
	public void share() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (String limit : this.local.limits()) {
				Map<String, Long> counts = this.local.counts(limit);
				byte[] hash = hash(limit);
				if (counts.isEmpty()) {
					connection.hashCommands().hDel(hash, this.instance);
					continue;
				}
				StringBuilder value = new StringBuilder().append(System.currentTimeMillis()).append('\n');
				counts.forEach((key, counted) -> value.append(counted)
					.append(' ')
					.append(URLEncoder.encode(key, StandardCharsets.UTF_8))
					.append('\n'));
				connection.hashCommands().hSet(hash, this.instance, value.toString().getBytes(StandardCharsets.UTF_8));
				connection.keyCommands().pExpire(hash, STALE_MILLIS);
			}
		}
		catch (RuntimeException ex) {
			// Shared again on the next round.
		}
	}

	private static void read(String value, long now, Map<String, Long> counts) {
		String[] lines = value.split("\n");
		if (lines.length == 0 || now - Long.parseLong(lines[0]) > STALE_MILLIS) {
			return;
		}
		for (int i = 1; i < lines.length; i++) {
			int space = lines[i].indexOf(' ');
			counts.merge(URLDecoder.decode(lines[i].substring(space + 1), StandardCharsets.UTF_8),
					Long.parseLong(lines[i].substring(0, space)), Long::sum);
		}
	}

	private byte[] hash(String limit) {
		return (this.keyPrefix + "offenders:" + limit).getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public void start() {
		this.repeated.start();
	}

	/**
	 * Stop sharing, after one last share that a shutdown waits for no longer than
	 * {@code shutdownWait}: a Redis that does not answer must not hold the application up
	 * (it was held for a minute, Boot's command timeout, past Kubernetes' 30 s).
	 */
	@Override
	public void stop() {
		this.repeated.stop();
		Thread last = new Thread(this::share, "limiter-offenders-last-share");
		last.setDaemon(true);
		last.start();
		try {
			last.join(this.shutdownWait.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.repeated.isRunning();
	}

}
