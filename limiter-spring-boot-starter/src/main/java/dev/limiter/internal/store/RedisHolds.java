package dev.limiter.internal.store;

import java.nio.charset.StandardCharsets;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;

import dev.limiter.internal.client.OutgoingQuotas;
import dev.limiter.internal.client.UpstreamHolds;
import dev.limiter.internal.client.UpstreamPolicy;

/**
 * Shares the holds that upstreams ask for through Redis: an instance that learns one
 * publishes {@code <client> <until ms>} on the channel {@code <prefix>holds}, and every
 * instance holds that client until then. A hold that cannot be published stays on the
 * instance that learned it.
 */
public final class RedisHolds implements UpstreamHolds, MessageListener {

	private static final Logger logger = LoggerFactory.getLogger(RedisHolds.class);

	private final RedisConnectionFactory connectionFactory;

	private final ChannelTopic channel;

	private final OutgoingQuotas quotas;

	/**
	 * Create the holds.
	 * @param connectionFactory the application's Redis
	 * @param keyPrefix the prefix of Limiter's keys and channels
	 * @param quotas the quotas that take the holds other instances learned
	 */
	public RedisHolds(RedisConnectionFactory connectionFactory, String keyPrefix, OutgoingQuotas quotas) {
		this.connectionFactory = connectionFactory;
		this.channel = new ChannelTopic(keyPrefix + "holds");
		this.quotas = quotas;
	}

	public ChannelTopic getChannel() {
		return this.channel;
	}

	@Override
	public void announce(String client, long untilMillis) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			// kept as well as published: an instance that starts during the hold reads it
			long left = untilMillis - System.currentTimeMillis();
			if (left > 0) {
				connection.stringCommands()
					.set(key(client), Long.toString(untilMillis).getBytes(StandardCharsets.UTF_8),
							org.springframework.data.redis.core.types.Expiration.milliseconds(left),
							org.springframework.data.redis.connection.RedisStringCommands.SetOption.upsert());
			}
			connection.publish(this.channel.getTopic().getBytes(StandardCharsets.UTF_8),
					(client + " " + untilMillis).getBytes(StandardCharsets.UTF_8));
		}
		catch (RuntimeException ex) {
			logger.debug("Limiter could not tell the other instances that '{}' is held", client, ex);
		}
	}

	/** How long a learned quota is kept for instances that start later. */
	static final long POLICY_KEPT_MILLIS = java.time.Duration.ofDays(1).toMillis();

	@Override
	public void announcePolicy(String client, UpstreamPolicy policy) {
		String text = policy.quota() + " " + policy.window().toMillis();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.stringCommands()
				.set(policyKey(client), text.getBytes(StandardCharsets.UTF_8),
						org.springframework.data.redis.core.types.Expiration.milliseconds(POLICY_KEPT_MILLIS),
						org.springframework.data.redis.connection.RedisStringCommands.SetOption.upsert());
			connection.publish(this.channel.getTopic().getBytes(StandardCharsets.UTF_8),
					(POLICY + client + " " + text).getBytes(StandardCharsets.UTF_8));
		}
		catch (RuntimeException ex) {
			logger.debug("Limiter could not tell the other instances of the quota '{}' follows", client, ex);
		}
	}

	private static final String POLICY = "policy ";

	/**
	 * Take the holds that other instances learned before this one started and that still
	 * run; a Redis that cannot answer leaves none.
	 * @param clients the names of the clients
	 */
	public void readKept(Iterable<String> clients) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (String client : clients) {
				byte[] until = connection.stringCommands().get(key(client));
				if (until != null) {
					this.quotas.held(client, Long.parseLong(new String(until, StandardCharsets.UTF_8)));
				}
				byte[] policy = connection.stringCommands().get(policyKey(client));
				if (policy != null) {
					this.quotas.followed(client, policy(new String(policy, StandardCharsets.UTF_8)));
				}
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Limiter could not read the holds other instances learned", ex);
		}
	}

	private byte[] policyKey(String client) {
		return (this.channel.getTopic() + ":" + client + ":policy").getBytes(StandardCharsets.UTF_8);
	}

	/** A quota as kept and published: {@code <quota> <window ms>}. */
	private static UpstreamPolicy policy(String text) {
		int space = text.indexOf(' ');
		return new UpstreamPolicy(Long.parseLong(text.substring(0, space)),
				java.time.Duration.ofMillis(Long.parseLong(text.substring(space + 1))));
	}

	private byte[] key(String client) {
		return (this.channel.getTopic() + ":" + client).getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public void onMessage(Message message, byte[] pattern) {
		String text = new String(message.getBody(), StandardCharsets.UTF_8);
		try {
			if (text.startsWith(POLICY)) {
				String rest = text.substring(POLICY.length());
				int space = rest.indexOf(' ');
				this.quotas.followed(rest.substring(0, space), policy(rest.substring(space + 1)));
				return;
			}
			int space = text.lastIndexOf(' ');
			this.quotas.held(text.substring(0, space), Long.parseLong(text.substring(space + 1)));
		}
		catch (RuntimeException ex) {
			logger.debug("Limiter ignored a hold it could not read: {}", text);
		}
	}

}
