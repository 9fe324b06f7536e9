package dev.limiter.client;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.internal.client.OutgoingQuotas;

/**
 * Auto-configuration of the quotas of outgoing calls ({@code limiter.clients}): the
 * interceptor and the filter, and their place in every {@code RestClient},
 * {@code RestTemplate} and {@code WebClient} built from Spring Boot's builders. Beside
 * the two classes it constructs, so that their constructors are not public API.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.http.client.ClientHttpRequestInterceptor")
@ConditionalOnBean(OutgoingQuotas.class)
public final class LimiterClientsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitClientHttpRequestInterceptor rateLimitClientHttpRequestInterceptor(OutgoingQuotas quotas) {
		return new RateLimitClientHttpRequestInterceptor(quotas);
	}

	// Static, and reaching the interceptor and the filter only once a builder needs them,
	// so that no bean is created early for it; the filter by name, so that nothing here
	// loads WebFlux's types where WebFlux is not.
	@Bean
	static BeanPostProcessor limiterClientBuilders(ObjectProvider<RateLimitClientHttpRequestInterceptor> interceptor,
			BeanFactory beanFactory) {
		return new ClientBuilders(interceptor, beanFactory);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(
			name = { "org.springframework.web.reactive.function.client.WebClient", "reactor.core.publisher.Mono" })
	static class ReactiveClientConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitExchangeFilterFunction rateLimitExchangeFilterFunction(OutgoingQuotas quotas) {
			return new RateLimitExchangeFilterFunction(quotas);
		}

	}

}
