package dev.limiter.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.internal.actuate.ClientMetrics;
import dev.limiter.internal.actuate.LimiterMetrics;
import dev.limiter.internal.actuate.LimiterObservations;
import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;

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

	// The gauge of calls in flight per limit, once the pipeline exists: the store's own
	// beans need the metrics first.
	@Bean
	static SmartInitializingSingleton limiterCallsInFlightGauges(ObjectProvider<CallPipeline> pipeline,
			ObjectProvider<LimiterMetrics> metrics, ObjectProvider<LimitResolver> limits) {
		return () -> metrics.ifAvailable((registered) -> {
			pipeline.ifAvailable((calls) -> calls.inFlight().watch(registered::watchCallsInFlight));
			limits.ifAvailable((resolver) -> resolver.local()
				.forEach((name, local) -> registered.watchAdaptive(name, local.learned())));
		});
	}

	// Outgoing calls: waits, refusals and the upstream's rejections per client.
	@Bean
	@ConditionalOnBean(OutgoingQuotas.class)
	@ConditionalOnMissingBean
	ClientMetrics limiterClientMetrics(MeterRegistry meterRegistry, OutgoingQuotas quotas) {
		ClientMetrics metrics = new ClientMetrics(meterRegistry,
				quotas.quotas().stream().map(OutgoingQuota::name).toList());
		quotas.setListener(metrics);
		return metrics;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
	@ConditionalOnBean(type = "io.micrometer.observation.ObservationRegistry")
	static class ObservationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LimiterObservations limiterObservations(ObjectProvider<io.micrometer.observation.ObservationRegistry> registry,
				ObjectProvider<CallPipeline> pipeline) {
			LimiterObservations observations = new LimiterObservations(registry.getObject());
			pipeline.ifAvailable((calls) -> calls.setObserver(observations));
			return observations;
		}

	}

}
