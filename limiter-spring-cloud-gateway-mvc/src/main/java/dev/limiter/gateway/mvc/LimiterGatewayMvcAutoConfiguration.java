package dev.limiter.gateway.mvc;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties;
import org.springframework.context.annotation.Bean;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.call.RouteCalls;
import dev.limiter.internal.web.RateLimitResponses;

/**
 * Auto-configuration of Limiter in Spring Cloud Gateway Server MVC: the {@code Limiter}
 * filter of route configuration, and the routes' limits, checked when the application
 * starts.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
		beforeName = "org.springframework.cloud.gateway.server.mvc.GatewayServerMvcAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(name = "spring.cloud.gateway.server.webmvc.enabled", matchIfMissing = true)
@ConditionalOnBean({ RouteCalls.class, RateLimitResponses.class })
public final class LimiterGatewayMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LimiterFilterFunctions.FilterSupplier limiterFilterFunctionsSupplier() {
		return new LimiterFilterFunctions.FilterSupplier();
	}

	@Bean
	@ConditionalOnMissingBean
	MvcRouteLimits limiterMvcRouteLimits(RouteCalls calls, RateLimitResponses responses, BeanFactory beans,
			ObjectProvider<GatewayMvcProperties> properties) {
		return new MvcRouteLimits(calls, responses, beans, properties);
	}

}
