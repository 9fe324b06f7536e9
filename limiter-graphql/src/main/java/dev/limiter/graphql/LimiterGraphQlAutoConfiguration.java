package dev.limiter.graphql;

import graphql.GraphQL;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.graphql.autoconfigure.GraphQlSourceBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.graphql.execution.GraphQlSource;
import org.springframework.graphql.server.WebGraphQlHandler;
import org.springframework.graphql.server.WebGraphQlResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.internal.call.SurfaceCalls;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * Auto-configuration of Limiter on Spring for GraphQL: the cost directives in the schema,
 * {@code @RateLimit} refusals of controller methods answered as GraphQL errors, and with
 * {@code limiter.graphql.limit} a budget of points per caller
 * ({@link GraphQlRateLimitInterceptor}), its refusals answered with 429 over HTTP.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
		afterName = "org.springframework.boot.graphql.autoconfigure.GraphQlAutoConfiguration",
		beforeName = { "org.springframework.boot.graphql.autoconfigure.servlet.GraphQlWebMvcAutoConfiguration",
				"org.springframework.boot.graphql.autoconfigure.reactive.GraphQlWebFluxAutoConfiguration" })
@ConditionalOnClass({ GraphQL.class, GraphQlSource.class, GraphQlSourceBuilderCustomizer.class })
@ConditionalOnBean(SurfaceCalls.class)
@EnableConfigurationProperties(LimiterGraphQlProperties.class)
public final class LimiterGraphQlAutoConfiguration {

	@Bean
	GraphQlSourceBuilderCustomizer limiterGraphQlCostDirectives() {
		return (builder) -> builder.configureTypeDefinitions(new CostDirectives());
	}

	@Bean
	@ConditionalOnMissingBean(GraphQlFieldErrors.class)
	GraphQlFieldErrors limiterGraphQlFieldErrors() {
		return new GraphQlFieldErrors();
	}

	@Bean
	@ConditionalOnProperty(prefix = "limiter.graphql", name = "limit")
	@ConditionalOnMissingBean
	GraphQlRateLimitInterceptor limiterGraphQlInterceptor(SurfaceCalls calls, ObjectProvider<RateLimitHeaders> headers,
			LimiterProperties properties, ObjectProvider<GraphQlSource> source,
			ObjectProvider<GraphQlFieldCost> fieldCost, LimiterGraphQlProperties graphQl,
			ObjectProvider<GraphQlPoints> points, org.springframework.context.ApplicationContext context) {
		return new GraphQlRateLimitInterceptor(calls,
				headers.getIfAvailable(() -> new RateLimitHeaders(properties.getWeb().getHeaders())),
				() -> source.getObject().schema(), fieldCost.getIfAvailable(), graphQl,
				points.getIfAvailable(() -> GraphQlPoints.NONE),
				!(context instanceof org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext));
	}

	// graphql-java takes the document the budget's interceptor parsed, instead of parsing
	// its text again
	@Bean
	@ConditionalOnProperty(prefix = "limiter.graphql", name = "limit")
	static ParsedDocuments.SourcePostProcessor limiterGraphQlParsedDocuments() {
		return new ParsedDocuments.SourcePostProcessor();
	}

	// Reads the schema's cost directives and registers the budget once every bean exists:
	// a limit that limiter.limits lacks, or a weight that is not a number, stops the
	// start.
	@Bean
	static SmartInitializingSingleton limiterGraphQlStart(ObjectProvider<GraphQlRateLimitInterceptor> interceptor) {
		return () -> interceptor.ifAvailable(GraphQlRateLimitInterceptor::start);
	}

	/** The points counter, where Micrometer is. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		GraphQlPoints limiterGraphQlPoints(ObjectProvider<MeterRegistry> registry) {
			return new GraphQlPoints(registry.getIfAvailable());
		}

	}

	/**
	 * Limiter's refusals answered with their status (429, 503) over HTTP with Spring MVC.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	@ConditionalOnClass(org.springframework.graphql.server.webmvc.GraphQlHttpHandler.class)
	@ConditionalOnProperty(prefix = "limiter.graphql", name = "limit")
	static class ServletConfiguration {

		@Bean
		@ConditionalOnMissingBean
		org.springframework.graphql.server.webmvc.GraphQlHttpHandler graphQlHttpHandler(WebGraphQlHandler handler) {
			return new org.springframework.graphql.server.webmvc.GraphQlHttpHandler(handler) {

				@Override
				protected HttpStatus selectResponseStatus(WebGraphQlResponse response, MediaType mediaType) {
					HttpStatus refused = GraphQlAnswers.status(response.getExecutionResult());
					return (refused != null) ? refused : super.selectResponseStatus(response, mediaType);
				}

			};
		}

	}

	/**
	 * Limiter's refusals answered with their status (429, 503) over HTTP with WebFlux.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.REACTIVE)
	@ConditionalOnClass(org.springframework.graphql.server.webflux.GraphQlHttpHandler.class)
	@ConditionalOnProperty(prefix = "limiter.graphql", name = "limit")
	static class ReactiveConfiguration {

		@Bean
		@ConditionalOnMissingBean
		org.springframework.graphql.server.webflux.GraphQlHttpHandler graphQlHttpHandler(WebGraphQlHandler handler) {
			return new org.springframework.graphql.server.webflux.GraphQlHttpHandler(handler) {

				@Override
				protected HttpStatus selectResponseStatus(WebGraphQlResponse response, MediaType mediaType) {
					HttpStatus refused = GraphQlAnswers.status(response.getExecutionResult());
					return (refused != null) ? refused : super.selectResponseStatus(response, mediaType);
				}

			};
		}

	}

}
