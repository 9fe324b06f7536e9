package dev.limiter.internal.store;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;

/**
 * Tells every instance that a key was reset, over Redis pub/sub on the channel
 * {@code <key prefix>resets}, so that each forgets the rejections of that key it caches:
 * a caller another instance rejected before the reset is not kept out until its old
 * retry-after.
 */
public final class RateLimitResets implements MessageListener {

	private final RedisConnectionFactory connectionFactory;

	private final ChannelTopic channel;

	private final Consumer<String> forget;

	/**
	 * Create the broadcast.
	 * @param connectionFactory the factory a reset is announced through: the limiter's
	 * own, whose timeout bounds how long the endpoint waits on Redis
	 * @param keyPrefix the limiter's key prefix, which names the channel
	 * @param forget what this instance does when a key was reset anywhere
	 */
	public RateLimitResets(RedisConnectionFactory connectionFactory, String keyPrefix, Consumer<String> forget) {
		this.connectionFactory = connectionFactory;
		this.channel = new ChannelTopic(keyPrefix + "resets");
		this.forget = forget;
	}

	/**
	 * Return the channel the resets are published on.
	 * @return the channel
	 */
	public ChannelTopic getChannel() {
		return this.channel;
	}

	/**
	 * Tell every instance, this one included, that a key was reset.
	 * @param key the key
	 */
	public void published(String key) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.publish(this.channel.getTopic().getBytes(StandardCharsets.UTF_8),
					key.getBytes(StandardCharsets.UTF_8));
		}
	}

	@Override
	public void onMessage(Message message, byte[] pattern) {
		this.forget.accept(new String(message.getBody(), StandardCharsets.UTF_8));
	}

}
