package dev.limiter.gateway;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.codec.ServerCodecConfigurer;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.call.RouteCalls;
import dev.limiter.internal.web.RateLimitHeaders;
import dev.limiter.internal.web.RateLimitResponses;
import dev.limiter.internal.web.reactive.ReactiveRejections;

/**
 * Auto-configuration of Limiter in Spring Cloud Gateway: the {@code limiterRateLimiter}
 * bean for the {@code RequestRateLimiter} filter, and the answer to the requests its
 * routes reject.
 * <p>
 * Registered before the gateway's own configuration, so that the gateway sees a rate
 * limiter and offers its filter even without a reactive Redis template; primary, so that
 * the filter uses it when a route names no {@code rate-limiter}.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
		beforeName = { "org.springframework.cloud.gateway.config.GatewayAutoConfiguration",
				"org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration" })
@ConditionalOnClass(name = "org.springframework.cloud.gateway.filter.ratelimit.RateLimiter")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnProperty(name = "spring.cloud.gateway.server.webflux.enabled", matchIfMissing = true)
@ConditionalOnBean({ RouteCalls.class, RateLimitResponses.class })
public final class LimiterGatewayAutoConfiguration {

	@Bean(GatewayRateLimiter.BEAN_NAME)
	@Primary
	@ConditionalOnMissingBean(name = GatewayRateLimiter.BEAN_NAME)
	GatewayRateLimiter limiterRateLimiter(RouteCalls routeCalls, RateLimitHeaders headers,
			ConfigurationService configurationService, org.springframework.beans.factory.ListableBeanFactory beans) {
		return new GatewayRateLimiter(routeCalls, headers, configurationService, beans);
	}

	// Ends the requests of routes that count calls in flight when their exchange ends.
	@Bean
	RouteCallEnds limiterRouteCallEnds(GatewayRateLimiter limiterRateLimiter) {
		return new RouteCallEnds(limiterRateLimiter);
	}

	@Bean
	@ConditionalOnMissingBean
	GatewayRateLimitExceptionHandler gatewayRateLimitExceptionHandler(RateLimitResponses responses,
			ObjectProvider<ReactiveRejections> rejections, ObjectProvider<ServerCodecConfigurer> codecs) {
		return new GatewayRateLimitExceptionHandler(rejections.getIfAvailable(
				() -> new ReactiveRejections(responses, () -> codecs.getIfAvailable(ServerCodecConfigurer::create))));
	}

}
