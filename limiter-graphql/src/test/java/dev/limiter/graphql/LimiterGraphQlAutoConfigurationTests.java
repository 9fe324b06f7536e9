package dev.limiter.graphql;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The budget's beans with and without Micrometer, and without a budget.
 */
class LimiterGraphQlAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(org.springframework.boot.graphql.autoconfigure.GraphQlAutoConfiguration.class,
						LimiterAutoConfiguration.class, LimiterGraphQlAutoConfiguration.class))
		.withBean(Library.class)
		.withPropertyValues("limiter.store=memory", "limiter.limits.points.threshold=100",
				"limiter.limits.points.period=1h");

	@Test
	void withoutMicrometerTheBudgetStartsAndCountsNoPoints() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.withPropertyValues("limiter.graphql.limit=points")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(GraphQlRateLimitInterceptor.class);
				assertThat(context).doesNotHaveBean(GraphQlPoints.class);
			});
	}

	@Test
	void withMicrometerPointsAreCounted() {
		this.contextRunner.withBean(io.micrometer.core.instrument.simple.SimpleMeterRegistry.class)
			.withPropertyValues("limiter.graphql.limit=points")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(GraphQlPoints.class);
				context.getBean(GraphQlPoints.class).charged("Shelf", 3);
				assertThat(context.getBean(MeterRegistry.class).get(GraphQlPoints.METER).counter().count())
					.isEqualTo(3);
			});
	}

	@Test
	void withoutABudgetOnlyTheDirectivesAndTheFieldErrorsAreThere() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(GraphQlRateLimitInterceptor.class);
			assertThat(context).hasSingleBean(GraphQlFieldErrors.class);
		});
	}

}
