package dev.limiter.redis;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

import org.springframework.data.redis.connection.RedisSentinelConnection;
import org.springframework.data.redis.connection.RedisServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Under Sentinel, asks the Sentinels every {@link #EVERY} which server is the master, and
 * says when it is no longer the one they named when the limiter's connection was made. A
 * connection can outlive a switch: after a planned failover the former master stays up
 * (and takes writes until the Sentinels make it a replica), and a reconnect can land on
 * an address a Sentinel named before it promoted another; counts written there are lost
 * to every other instance.
 */
final class SentinelWatch implements AutoCloseable {

	/** How often the Sentinels are asked. */
	static final Duration EVERY = Duration.ofSeconds(1);

	private final LettuceConnectionFactory factory;

	private final String masterName;

	private final BiConsumer<String, String> moved;

	private volatile String connectedTo;

	private volatile boolean closed;

	private Thread thread;

	/**
	 * Create the watch.
	 * @param factory the limiter's factory, aware of the Sentinels
	 * @param moved told the master the connection was made to and the one the Sentinels
	 * name now, when they differ
	 */
	SentinelWatch(LettuceConnectionFactory factory, BiConsumer<String, String> moved) {
		this.factory = factory;
		this.masterName = factory.getSentinelConfiguration().getMaster().getName();
		this.moved = moved;
	}

	/**
	 * Note the master the Sentinels name as a connection is made, and start watching.
	 */
	synchronized void connecting() {
		this.connectedTo = named();
		if (this.thread == null && !this.closed) {
			this.thread = new Thread(this::watch, "limiter-sentinel-watch");
			this.thread.setDaemon(true);
			this.thread.start();
		}
	}

	private void watch() {
		while (!this.closed) {
			LockSupport.parkNanos(EVERY.toNanos());
			String at = this.connectedTo;
			if (at == null || this.closed) {
				continue;
			}
			String named = named();
			if (named != null && !named.equals(at)) {
				this.connectedTo = null;
				this.moved.accept(at, named);
			}
		}
	}

	/**
	 * Return the master the Sentinels name, as {@code host:port}.
	 * @return the address, or {@code null} when no Sentinel answers
	 */
	String named() {
		try (RedisSentinelConnection sentinels = this.factory.getSentinelConnection()) {
			for (RedisServer master : sentinels.masters()) {
				if (this.masterName.equals(master.getName())) {
					return master.getHost() + ":" + master.getPort();
				}
			}
			return null;
		}
		catch (Exception ex) {
			// Asked again in a second; the connection stays as it is meanwhile.
			return null;
		}
	}

	@Override
	public void close() {
		this.closed = true;
		Thread watching;
		synchronized (this) {
			watching = this.thread;
		}
		if (watching != null) {
			LockSupport.unpark(watching);
		}
	}

}
