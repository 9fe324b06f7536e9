package dev.limiter.internal.store;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.limiter.internal.offenders.TopOffenders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shutdown never waits on a Redis that does not answer longer than Limiter's bound: the
 * last share of the ranking of rejected callers goes through the application's
 * connection, whose own timeout (a minute by default) used to hold the application up.
 */
class RedisOffendersShutdownTests {

	@Test
	void aRedisThatNeverAnswersHoldsTheShutdownNoLongerThanTheBound() {
		CountDownLatch never = new CountDownLatch(1);
		// glue only: a connection factory whose every connection waits as a dead Redis
		// behind a long command timeout would
		RedisConnectionFactory silent = (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")) {
						never.await();
					}
					return null;
				});
		TopOffenders local = new TopOffenders();
		local.rejected("search", "u:alice");
		RedisOffenders offenders = new RedisOffenders(silent, "limiter:", local, Duration.ofMillis(300));
		offenders.start();
		long start = System.nanoTime();
		offenders.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		never.countDown();
	}

}
