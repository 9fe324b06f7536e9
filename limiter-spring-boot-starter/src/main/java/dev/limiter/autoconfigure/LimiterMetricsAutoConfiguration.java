package dev.limiter.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.limiter.actuate.LimiterMetrics;

/**
 * Auto-configuration of the limiter's Micrometer counters ({@link LimiterMetrics}), when
 * the application has a {@link MeterRegistry}.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
				"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnLimiterEnabled
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class LimiterMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LimiterMetrics limiterMetrics(MeterRegistry meterRegistry) {
		return new LimiterMetrics(meterRegistry);
	}

}
