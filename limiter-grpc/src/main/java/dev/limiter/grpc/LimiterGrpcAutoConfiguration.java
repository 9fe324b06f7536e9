package dev.limiter.grpc;

import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.client.GlobalClientInterceptor;
import org.springframework.grpc.server.GlobalServerInterceptor;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.internal.call.SurfaceCalls;
import dev.limiter.internal.client.OutgoingQuotas;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * Auto-configuration of Limiter on gRPC services: {@link GrpcRateLimitInterceptor} as a
 * global server interceptor of Spring gRPC, which finds the limits of every
 * {@link BindableService} bean once the application's beans exist.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
		afterName = "dev.limiter.client.LimiterClientsAutoConfiguration")
@ConditionalOnClass({ ServerInterceptor.class, BindableService.class })
@ConditionalOnBean(SurfaceCalls.class)
@EnableConfigurationProperties(LimiterGrpcProperties.class)
public final class LimiterGrpcAutoConfiguration {

	// Finds the services' limits after every bean exists: a limit named in YAML that
	// no service has, or that limiter.limits lacks, stops the start here.
	@Bean
	static SmartInitializingSingleton limiterGrpcLimits(ListableBeanFactory beans) {
		return () -> beans.getBeanProvider(GrpcRateLimitInterceptor.class)
			.ifAvailable((interceptor) -> interceptor.limit(beans.getBeansOfType(BindableService.class).values(),
					beans.getBean(LimiterGrpcProperties.class).getLimits()));
	}

	/**
	 * The web's header writer, or one of its own in an application that serves no HTTP.
	 */
	static RateLimitHeaders headers(ObjectProvider<RateLimitHeaders> headers, LimiterProperties properties) {
		return headers.getIfAvailable(() -> new RateLimitHeaders(properties.getWeb().getHeaders()));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(GlobalServerInterceptor.class)
	static class SpringGrpcConfiguration {

		@Bean
		@GlobalServerInterceptor
		@ConditionalOnMissingBean
		GrpcRateLimitInterceptor limiterGrpcInterceptor(SurfaceCalls calls, ObjectProvider<RateLimitHeaders> headers,
				LimiterProperties properties) {
			return new GrpcRateLimitInterceptor(calls, headers(headers, properties));
		}

	}

	// limiter.clients.<name> on the channels of Spring gRPC's channel factory.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(GlobalClientInterceptor.class)
	@ConditionalOnBean(OutgoingQuotas.class)
	static class SpringGrpcClientConfiguration {

		@Bean
		@GlobalClientInterceptor
		@ConditionalOnMissingBean
		GrpcClientRateLimitInterceptor limiterGrpcClientInterceptor(OutgoingQuotas quotas) {
			return new GrpcClientRateLimitInterceptor(quotas);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("org.springframework.grpc.server.GlobalServerInterceptor")
	static class PlainGrpcConfiguration {

		// Without Spring gRPC, the server that the application builds adds it by hand.
		@Bean
		@ConditionalOnMissingBean
		GrpcRateLimitInterceptor limiterGrpcInterceptor(SurfaceCalls calls, ObjectProvider<RateLimitHeaders> headers,
				LimiterProperties properties) {
			return new GrpcRateLimitInterceptor(calls, headers(headers, properties));
		}

	}

}
