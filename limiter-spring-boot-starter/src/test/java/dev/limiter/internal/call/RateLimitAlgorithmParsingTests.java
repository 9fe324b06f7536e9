package dev.limiter.internal.call;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.Limit;
import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimitResolvers;
import dev.limiter.autoconfigure.LimiterProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a limit's algorithm and slices come from: the configuration of a named limit,
 * then the annotation, then {@code limiter.algorithm}.
 */
class RateLimitAlgorithmParsingTests {

	@Test
	void aLimitWithoutAnAlgorithmTakesTheConfiguredDefault() throws Exception {
		RateLimitAnnotationParser parser = parser(Map.of(), Algorithm.TOKEN_BUCKET);
		assertThat(parser.parse(Limited.class.getMethod("plain")).getLimits())
			.containsExactly(Limit.of(10, Duration.ofMinutes(1)).withAlgorithm(Algorithm.TOKEN_BUCKET));
	}

	@Test
	void theAnnotationChoosesItsAlgorithmAndSlices() throws Exception {
		RateLimitAnnotationParser parser = parser(Map.of(), Algorithm.TOKEN_BUCKET);
		assertThat(parser.parse(Limited.class.getMethod("hourly")).getLimits()).containsExactly(
				Limit.of(10_000, Duration.ofHours(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS).withSlices(120));
	}

	@Test
	void theConfigurationOfANamedLimitWins() throws Exception {
		LimiterProperties.NamedLimit named = new LimiterProperties.NamedLimit();
		named.setAlgorithm(Algorithm.SLIDING_BUCKETS);
		named.setSlices(30);
		RateLimitAnnotationParser parser = parser(Map.of("bursty", named), Algorithm.SLIDING_LOG);
		assertThat(parser.parse(Limited.class.getMethod("bursty")).getLimits()).containsExactly(
				Limit.of("bursty", 5, Duration.ofSeconds(1)).withAlgorithm(Algorithm.SLIDING_BUCKETS).withSlices(30));
	}

	private static RateLimitAnnotationParser parser(Map<String, LimiterProperties.NamedLimit> named,
			Algorithm algorithm) {
		LimiterProperties properties = new LimiterProperties();
		properties.getLimits().putAll(named);
		properties.setAlgorithm(algorithm);
		return new RateLimitAnnotationParser(LimitResolvers.of(properties), null);
	}

	static class Limited {

		@RateLimit(threshold = 10)
		public void plain() {
		}

		@RateLimit(threshold = 10_000, period = 1, unit = java.util.concurrent.TimeUnit.HOURS,
				algorithm = Algorithm.SLIDING_BUCKETS, slices = 120)
		public void hourly() {
		}

		@RateLimit(name = "bursty", threshold = 5, period = 1, algorithm = Algorithm.TOKEN_BUCKET)
		public void bursty() {
		}

	}

}
