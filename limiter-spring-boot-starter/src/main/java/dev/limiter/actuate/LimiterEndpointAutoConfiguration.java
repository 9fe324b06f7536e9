package dev.limiter.actuate;

import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.OverrideStore;
import dev.limiter.internal.offenders.TopOffenders;
import dev.limiter.internal.retry.RetryBudgetBalances;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.internal.store.RateLimitResets;
import dev.limiter.internal.store.RedisOffenders;
import dev.limiter.internal.store.RedisSubscription;
import dev.limiter.resilience.ResilientRateLimiter;

/**
 * Auto-configuration of the {@code ratelimits} Actuator endpoint
 * ({@link RateLimitsEndpoint}) and, with the Redis store, of the broadcast that makes a
 * reset forget the key's cached rejections on every instance. It sits beside the
 * endpoint, which only it constructs.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "limiter.enabled", matchIfMissing = true)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean({ RateLimiter.class, RateLimitOperationSource.class, LimitResolver.class })
public final class LimiterEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitsEndpoint rateLimitsEndpoint(RateLimitOperationSource operations, RateLimiter rateLimiter,
			LimitResolver limitResolver, LimiterProperties properties, ObjectProvider<RateLimitResets> resets,
			ObjectProvider<OverrideStore> overrideStore, TopOffenders offenders,
			ObjectProvider<RedisOffenders> sharedOffenders, ObjectProvider<RetryBudgetBalances> retryBudgets) {
		RateLimitsEndpoint endpoint = new RateLimitsEndpoint(operations, rateLimiter, limitResolver,
				properties.getFailure().getPolicy(), resets.getIfAvailable(),
				overrideStore.getIfAvailable(() -> OverrideStore.local(limitResolver.overrides())),
				(sharedOffenders.getIfAvailable() != null) ? sharedOffenders.getObject() : offenders);
		endpoint.setRetryBudgets(retryBudgets.getIfAvailable());
		return endpoint;
	}

	// An override's body over HTTP: flat plan fields, unknown fields refused, fields left
	// out kept as they are.
	@Bean
	static org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor limiterOverrideBodies(
			ObjectProvider<LimitResolver> limitResolver, ObjectProvider<RateLimitsEndpoint> endpoint) {
		return new OverrideBodies(() -> {
			LimitResolver resolver = limitResolver.getIfAvailable();
			return (resolver != null) ? resolver.overrides() : null;
		}, (name, key) -> {
			RateLimitsEndpoint ratelimits = endpoint.getIfAvailable();
			return (ratelimits != null) ? ratelimits.callerKey(name, key) : null;
		});
	}

	// An override's body Actuator cannot read as flat fields: a 400 that names what to
	// write, on either web stack, where Actuator answers a bare one.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
	static class ServletBodyErrorsConfiguration {

		@Bean
		static org.springframework.web.servlet.HandlerExceptionResolver limiterOverrideBodyErrors(
				ObjectProvider<org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints> endpoints) {
			return new OverrideBodyErrors.Servlet(new OverrideBodyErrors(endpoints::getIfAvailable));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(name = "org.springframework.web.server.WebExceptionHandler")
	static class ReactiveBodyErrorsConfiguration {

		@Bean
		static org.springframework.web.server.WebExceptionHandler limiterOverrideBodyErrors(
				ObjectProvider<org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints> endpoints) {
			return new OverrideBodyErrors.Reactive(new OverrideBodyErrors(endpoints::getIfAvailable));
		}

	}

	// The endpoint's writes (overrides, resets) are off unless an operator turns them on;
	// the start says so when they are on, since they lift limits for whoever reaches
	// them.
	@Bean
	static SmartInitializingSingleton limiterEndpointAccessNotice(
			ObjectProvider<org.springframework.boot.actuate.endpoint.EndpointAccessResolver> access) {
		return () -> access.ifAvailable((resolver) -> {
			org.springframework.boot.actuate.endpoint.Access granted = resolver.accessFor(
					org.springframework.boot.actuate.endpoint.EndpointId.of("ratelimits"),
					org.springframework.boot.actuate.endpoint.Access.READ_ONLY);
			if (granted == org.springframework.boot.actuate.endpoint.Access.UNRESTRICTED) {
				LoggerFactory.getLogger(RateLimitsEndpoint.class)
					.info("Limiter: the ratelimits endpoint takes writes (overrides and resets lift or change limits): "
							+ "allow them to operators only (docs/operations.md), or remove "
							+ "management.endpoint.ratelimits.access=unrestricted to make it read-only");
			}
		});
	}

	// Counts the rejections the pipeline enforces, by limit and caller, for the
	// endpoint's
	// list of the callers rejected most.
	@Bean
	@ConditionalOnMissingBean
	TopOffenders limiterTopOffenders(ObjectProvider<CallPipeline> pipeline) {
		TopOffenders offenders = new TopOffenders();
		pipeline.ifAvailable((calls) -> calls.setRejectionTally(offenders));
		return offenders;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedisMessageListenerContainer.class)
	@ConditionalOnBean({ ResilientRateLimiter.class, RedisConnectionFactory.class })
	static class ResetBroadcastConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisOffenders limiterSharedOffenders(RedisConnectionFactory connectionFactory, LimiterProperties properties,
				TopOffenders offenders, ObjectProvider<LimiterRedisConnection> limiterConnection) {
			// a shutdown waits for the last share no longer than Limiter waits on Redis,
			// and at least a second for a Redis that is merely slow
			java.time.Duration wait = properties.getTimeout().plusSeconds(1);
			return new RedisOffenders(connectionFactory,
					LimiterRedisConnection.bounded(limiterConnection.getIfAvailable(), connectionFactory),
					properties.getKeyPrefix(), offenders, wait);
		}

		@Bean
		@ConditionalOnMissingBean
		RateLimitResets rateLimitResets(RedisConnectionFactory connectionFactory, LimiterProperties properties,
				ResilientRateLimiter rateLimiter, ObjectProvider<LimiterRedisConnection> limiterConnection) {
			return new RateLimitResets(
					LimiterRedisConnection.bounded(limiterConnection.getIfAvailable(), connectionFactory),
					properties.getKeyPrefix(), rateLimiter::forgetCachedRejections);
		}

		@Bean
		RedisSubscription limiterResetSubscription(RedisConnectionFactory connectionFactory, RateLimitResets resets) {
			RedisMessageListenerContainer container = new RedisMessageListenerContainer();
			container.setConnectionFactory(connectionFactory);
			container.addMessageListener(resets, resets.getChannel());
			return new RedisSubscription(container, "resets");
		}

	}

}
