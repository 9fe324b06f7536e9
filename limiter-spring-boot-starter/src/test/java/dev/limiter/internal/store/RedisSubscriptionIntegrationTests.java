package dev.limiter.internal.store;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a subscription does once it listens runs only then: a message published from it is
 * heard, so that what it reads there (the holds and overrides kept in Redis) covers every
 * announcement made before, and the channel every one after.
 */
class RedisSubscriptionIntegrationTests {

	private final RedisServer redis = RedisServer.shared();

	@Test
	void whatRunsOnceSubscribedRunsWhenTheChannelIsHeard() throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
		factory.afterPropertiesSet();
		List<String> heard = new CopyOnWriteArrayList<>();
		CountDownLatch heardOne = new CountDownLatch(1);
		CountDownLatch ran = new CountDownLatch(1);
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(factory);
		container.addMessageListener((message, pattern) -> {
			heard.add(new String(message.getBody(), StandardCharsets.UTF_8));
			heardOne.countDown();
		}, new ChannelTopic("subscription-test"));
		RedisSubscription subscription = new RedisSubscription(container, "test", () -> {
			try (RedisConnection connection = factory.getConnection()) {
				connection.publish("subscription-test".getBytes(StandardCharsets.UTF_8),
						"sent once subscribed".getBytes(StandardCharsets.UTF_8));
			}
			ran.countDown();
		});
		try {
			subscription.start();
			assertThat(ran.await(10, TimeUnit.SECONDS)).as("ran once subscribed").isTrue();
			assertThat(heardOne.await(5, TimeUnit.SECONDS)).as("heard").isTrue();
			assertThat(heard).containsExactly("sent once subscribed");
		}
		finally {
			subscription.stop();
			subscription.destroy();
			factory.destroy();
		}
	}

}
