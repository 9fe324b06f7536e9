package dev.limiter.gateway;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The limits a route's {@code limiter.*} arguments give, and the errors that name the
 * argument to fix.
 */
class RouteLimitsTests {

	// limiter.limits.hourly (1000 an hour, sliding buckets) and limiter.limits.watched (5
	// a
	// second, shadowed), the defaults for the rest.
	private final LimitResolver limitResolver = new LimitResolver(
			Map.of("hourly",
					new LimitAttributes("hourly", 1000L, Duration.ofHours(1), Algorithm.SLIDING_BUCKETS, null, null,
							null, null, Map.of()),
					"watched",
					new LimitAttributes("watched", 5L, Duration.ofSeconds(1), null, null, null, null, true, Map.of())),
			Algorithm.SLIDING_LOG, false);

	@Test
	void anInlineLimitIsNamedAfterTheRouteAndTakesTheRoutesSettings() {
		GatewayRateLimiter.Config config = config(10L, Duration.ofSeconds(1));
		config.setAlgorithm(Algorithm.TOKEN_BUCKET);
		config.setFailurePolicy(FailurePolicy.FAIL_CLOSED);
		RouteLimits route = RouteLimits.of("orders", config, this.limitResolver);
		assertThat(route.limits()).containsExactly(Limit.of("orders", 10, Duration.ofSeconds(1))
			.withAlgorithm(Algorithm.TOKEN_BUCKET)
			.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		assertThat(route.limits().get(0).failurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
		assertThat(route.key("alice")).isEqualTo("r:orders:alice");
	}

	@Test
	void aNamedLimitKeepsItsOwnSettingsAndAloneSharesItsName() {
		GatewayRateLimiter.Config config = new GatewayRateLimiter.Config();
		config.setName(List.of("hourly"));
		config.setFailurePolicy(FailurePolicy.FAIL_CLOSED);
		RouteLimits route = RouteLimits.of("orders", config, this.limitResolver);
		Limit limit = route.limits().get(0);
		assertThat(limit.name()).isEqualTo("hourly");
		assertThat(limit.algorithm()).isEqualTo(Algorithm.SLIDING_BUCKETS);
		assertThat(limit.failurePolicy()).isEqualTo(FailurePolicy.FAIL_CLOSED);
		assertThat(route.key("a:b")).startsWith("n:hourly:#");
	}

	@Test
	void namedAndInlineLimitsCountOnTheRoute() {
		GatewayRateLimiter.Config config = config(10L, Duration.ofSeconds(1));
		config.setName(List.of("hourly"));
		RouteLimits route = RouteLimits.of("orders", config, this.limitResolver);
		assertThat(route.limits()).extracting(Limit::name).containsExactly("hourly", "orders");
		assertThat(route.scope()).isEqualTo("r:orders");
	}

	@Test
	void badArgumentsAreNamed() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RouteLimits.of("r", config(null, null), this.limitResolver))
			.withMessageContaining("gives no limit. Add limiter.threshold and limiter.period, or limiter.name");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RouteLimits.of("r", config(null, Duration.ofSeconds(1)), this.limitResolver))
			.withMessageContaining("but only limiter.period is given");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RouteLimits.of("r", config(0L, Duration.ofSeconds(1)), this.limitResolver))
			.withMessageStartingWith("route 'r': limiter.threshold/limiter.period: threshold must be between 1");
		GatewayRateLimiter.Config unknown = new GatewayRateLimiter.Config();
		unknown.setName(List.of("daily"));
		assertThatIllegalArgumentException().isThrownBy(() -> RouteLimits.of("r", unknown, this.limitResolver))
			.withMessageContaining("limiter.name 'daily' is not defined")
			.withMessageContaining("limiter.limits.daily.threshold");
		GatewayRateLimiter.Config shadow = new GatewayRateLimiter.Config();
		shadow.setName(List.of("watched"));
		assertThatIllegalArgumentException().isThrownBy(() -> RouteLimits.of("r", shadow, this.limitResolver))
			.withMessageContaining("is a shadow limit");
		GatewayRateLimiter.Config slices = config(10L, Duration.ofSeconds(1));
		slices.setSlices(10);
		assertThatIllegalArgumentException().isThrownBy(() -> RouteLimits.of("r", slices, this.limitResolver))
			.withMessageContaining("slices = 10 is given to a sliding-log limit");
		GatewayRateLimiter.Config algorithmOnly = new GatewayRateLimiter.Config();
		algorithmOnly.setName(List.of("hourly"));
		algorithmOnly.setAlgorithm(Algorithm.TOKEN_BUCKET);
		assertThatIllegalArgumentException().isThrownBy(() -> RouteLimits.of("r", algorithmOnly, this.limitResolver))
			.withMessageContaining("Remove limiter.algorithm");
		GatewayRateLimiter.Config permits = config(10L, Duration.ofSeconds(1));
		permits.setPermits(11);
		assertThatIllegalArgumentException().isThrownBy(() -> RouteLimits.of("r", permits, this.limitResolver))
			.withMessageContaining("limiter.permits: permits must be between 1 and the smallest threshold (10)");
	}

	private static GatewayRateLimiter.Config config(Long threshold, Duration period) {
		GatewayRateLimiter.Config config = new GatewayRateLimiter.Config();
		config.setThreshold(threshold);
		config.setPeriod(period);
		return config;
	}

}
