package dev.limiter.client;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClient;

/**
 * Gives the interceptor to every {@code RestClient.Builder} and
 * {@code RestTemplateBuilder} bean and the filter to every {@code WebClient.Builder}
 * bean, as they are created. Spring Boot's builders are prototypes: each client built
 * from one gets the quotas. The {@code RestTemplateBuilder} is reached by name, as its
 * package differs between Spring Boot 3 and 4.
 */
final class ClientBuilders implements BeanPostProcessor {

	private static final boolean WEB_CLIENT = ClassUtils
		.isPresent("org.springframework.web.reactive.function.client.WebClient", ClientBuilders.class.getClassLoader());

	static final Set<String> REST_TEMPLATE_BUILDERS = Set.of("org.springframework.boot.restclient.RestTemplateBuilder",
			"org.springframework.boot.web.client.RestTemplateBuilder");

	/** The name of the filter's bean. */
	static final String FILTER = "rateLimitExchangeFilterFunction";

	private final ObjectProvider<RateLimitClientHttpRequestInterceptor> interceptor;

	private final BeanFactory beanFactory;

	ClientBuilders(ObjectProvider<RateLimitClientHttpRequestInterceptor> interceptor, BeanFactory beanFactory) {
		this.interceptor = interceptor;
		this.beanFactory = beanFactory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof RestClient.Builder builder) {
			RateLimitClientHttpRequestInterceptor interceptor = this.interceptor.getIfAvailable();
			return (interceptor != null) ? builder.requestInterceptor(interceptor) : bean;
		}
		if (WEB_CLIENT && WebClients.isBuilder(bean) && this.beanFactory.containsBean(FILTER)) {
			return WebClients.withFilter(bean, this.beanFactory.getBean(FILTER));
		}
		if (REST_TEMPLATE_BUILDERS.contains(bean.getClass().getName())) {
			RateLimitClientHttpRequestInterceptor interceptor = this.interceptor.getIfAvailable();
			return (interceptor != null) ? withInterceptor(bean, interceptor) : bean;
		}
		return bean;
	}

	// The builder is immutable: the bean becomes the builder with the interceptor.
	private static Object withInterceptor(Object builder, ClientHttpRequestInterceptor interceptor) {
		try {
			Method additional = builder.getClass().getMethod("additionalInterceptors", java.util.Collection.class);
			return additional.invoke(builder, List.of(interceptor));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot add Limiter's interceptor to " + builder.getClass().getName(), ex);
		}
	}

	/** The WebClient side, loaded only where WebClient is. */
	private static final class WebClients {

		static boolean isBuilder(Object bean) {
			return bean instanceof org.springframework.web.reactive.function.client.WebClient.Builder;
		}

		static Object withFilter(Object bean, Object filter) {
			return ((org.springframework.web.reactive.function.client.WebClient.Builder) bean)
				.filter((RateLimitExchangeFilterFunction) filter);
		}

	}

}
