package dev.limiter.internal.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.limiter.Limit;

import static org.assertj.core.api.Assertions.assertThat;

class RedisKeysTests {

	private final Limit limit = Limit.of(2, Duration.ofSeconds(30));

	@Test
	void keyHasPrefixHashTagThresholdAndPeriod() {
		assertThat(RedisKeys.key("limiter:", "alice:/orders/{id}", this.limit))
			.isEqualTo("limiter:{alice:/orders/%7Bid%7D}:w30000");
	}

	@Test
	void bracesAndPercentCannotEndTheTag() {
		assertThat(RedisKeys.tag("a}b{c%")).isEqualTo("a%7Db%7Bc%25");
		assertThat(RedisKeys.tag("%7D")).isEqualTo("%257D");
		assertThat(RedisKeys.tag("%7D")).isNotEqualTo(RedisKeys.tag("}"));
	}

	@Test
	void longKeysAreHashed() {
		String longKey = "x".repeat(10_000);
		String tag = RedisKeys.tag(longKey);
		assertThat(tag).startsWith("%H").hasSize(66);
		assertThat(RedisKeys.tag(longKey + "y")).isNotEqualTo(tag);
		assertThat(RedisKeys.tag("{".repeat(150))).startsWith("%H").hasSize(66);
	}

	@Test
	void plainKeysAreKeptAsTheyAre() {
		assertThat(RedisKeys.tag("user 42 ünïcode:/route")).isEqualTo("user 42 ünïcode:/route");
	}

}
