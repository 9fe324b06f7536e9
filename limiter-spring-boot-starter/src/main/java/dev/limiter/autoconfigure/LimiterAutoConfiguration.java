package dev.limiter.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import dev.limiter.Algorithm;
import dev.limiter.Limit;
import dev.limiter.RateLimiter;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.internal.call.RateLimitAdvisor;
import dev.limiter.internal.call.RateLimitAnnotationParser;
import dev.limiter.internal.call.CallClock;
import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.call.RateLimitAspect;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.call.RouteCalls;
import dev.limiter.internal.call.RuleCalls;
import dev.limiter.internal.call.SurfaceCalls;
import dev.limiter.internal.client.OutgoingQuota;
import dev.limiter.internal.client.OutgoingQuotas;
import dev.limiter.internal.key.CurrentRequest;
import dev.limiter.internal.key.MethodRateLimitKeyResolver;
import dev.limiter.internal.key.ReactiveCurrentRequest;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.OverrideStore;
import dev.limiter.internal.web.RateLimitHeaders;
import dev.limiter.internal.web.RateLimitResponses;
import dev.limiter.internal.web.reactive.CachedRejectionHandlerAdapter;
import dev.limiter.internal.web.reactive.ReactiveRateLimitExceptionHandler;
import dev.limiter.internal.web.reactive.ReactiveRejections;
import dev.limiter.internal.web.reactive.ReactiveResponseHeaders;
import dev.limiter.internal.web.reactive.ReactiveServerErrorRefunds;
import dev.limiter.internal.web.reactive.RuleWebFilter;
import dev.limiter.internal.web.reactive.ServerWebExchangeCurrentRequest;
import dev.limiter.internal.web.reactive.ServerWebExchangeRateLimitKeyResolver;
import dev.limiter.internal.web.servlet.CachedRejectionInterceptor;
import dev.limiter.internal.web.servlet.RateLimitExceptionHandler;
import dev.limiter.internal.web.servlet.RateLimitExceptionResolver;
import dev.limiter.internal.web.servlet.RateLimitResponseHeaders;
import dev.limiter.internal.web.servlet.ServerErrorRefunds;
import dev.limiter.internal.web.servlet.ServletCurrentRequest;
import dev.limiter.internal.web.servlet.RuleFilter;
import dev.limiter.internal.web.servlet.ServletRateLimitKeyResolver;
import dev.limiter.key.RateLimitKeyResolver;

/**
 * Auto-configuration of Limiter: the {@link RateLimiter} store (Redis behind a circuit
 * breaker and failure policies when the application has a connection factory, otherwise
 * in memory), the {@link RateLimitAspect} that enforces {@code @RateLimit}, and in
 * servlet web applications the default key, the 429 handler and the quota headers.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
		"org.springframework.boot.autoconfigure.aop.AopAutoConfiguration" })
@ConditionalOnLimiterEnabled
@EnableConfigurationProperties(LimiterProperties.class)
@Import({ RedisStoreConfiguration.class, InMemoryStoreConfiguration.class, RetryBudgetsImportSelector.class })
public final class LimiterAutoConfiguration {

	// Nested configurations register their beans first, so this fallback only applies
	// outside servlet web applications.
	@Bean
	@ConditionalOnMissingBean
	RateLimitKeyResolver rateLimitKeyResolver() {
		return new MethodRateLimitKeyResolver();
	}

	// The one limit model: annotations, gateway routes and the endpoint resolve through
	// it.
	@Bean
	@ConditionalOnMissingBean
	LimitResolver limiterLimitResolver(LimiterProperties properties) {
		return limitResolver(properties);
	}

	// Imported first, the Redis store keeps overrides for every instance; otherwise they
	// apply to this instance only.
	@Bean
	@ConditionalOnMissingBean
	OverrideStore limiterOverrideStore(LimitResolver limitResolver) {
		return OverrideStore.local(limitResolver.overrides());
	}

	// Outgoing calls: the quotas of limiter.clients, counted by the same limiter (and its
	// failure policies) under the key c:<name>.
	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnClientsCondition.class)
	OutgoingQuotas limiterOutgoingQuotas(RateLimiter rateLimiter, LimiterProperties properties,
			ObjectProvider<CallClock> clock) {
		CallClock time = clock.getIfAvailable(() -> CallClock.SYSTEM);
		List<OutgoingQuota> quotas = new ArrayList<>();
		properties.getClients().forEach((name, client) -> {
			Algorithm algorithm = (client.getAlgorithm() != null) ? client.getAlgorithm() : properties.getAlgorithm();
			Limit limit = Limit.of(name, client.getThreshold(), client.getPeriod()).withAlgorithm(algorithm);
			List<String> hosts = client.getHosts().stream().filter((host) -> host != null && !host.isBlank()).toList();
			quotas.add(new OutgoingQuota(name, hosts, limit, client.getTokens(), client.getMaxWait(), time::nanoTime));
		});
		return new OutgoingQuotas(rateLimiter, quotas, time);
	}

	/**
	 * Return the resolver of every limit of the application over its properties: the
	 * named limits, the default algorithm and shadow mode.
	 */
	static LimitResolver limitResolver(LimiterProperties properties) {
		Map<String, LimitAttributes> named = new LinkedHashMap<>();
		properties.getLimits().forEach((name, limit) -> {
			Map<String, LimitAttributes.Plan> plans = new LinkedHashMap<>();
			limit.getPlans()
				.forEach((plan, numbers) -> plans.put(plan,
						new LimitAttributes.Plan(numbers.getThreshold(), numbers.getPeriod(), numbers.getShare())));
			LimiterProperties.Adaptive adaptive = limit.getAdaptive();
			named.put(name, new LimitAttributes(name, limit.getThreshold(), limit.getPeriod(), limit.getAlgorithm(),
					limit.getSlices(), limit.getFailurePolicy(), limit.getLocalThreshold(), limit.getShadow(), plans,
					limit.getCalendar(), limit.getZone(), limit.getPenalty(),
					new LimitAttributes.Adaptive(adaptive.getStrategy(), adaptive.getInitial(), adaptive.getMin())));
		});
		return new LimitResolver(named, properties.getAlgorithm(), properties.isShadow());
	}

	static java.util.List<RuleCalls.Settings> ruleSettings(java.util.List<LimiterProperties.Rule> rules) {
		return rules.stream()
			.map((rule) -> new RuleCalls.Settings(rule.getPaths(), rule.getExclude(), rule.getMethods(),
					rule.getLimits(), rule.getKey(), rule.getCondition(), rule.getMaxWait()))
			.toList();
	}

	// Spring Cloud announces a changed Environment: refreshed limiter.limits apply at
	// once.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
	static class RefreshConfiguration {

		@Bean
		LimitsRefresh limiterLimitsRefresh(Environment environment, LimitResolver limitResolver,
				ObjectProvider<RateLimitOperationSource> operations, ObjectProvider<RuleCalls> rules) {
			return new LimitsRefresh(environment, limitResolver, operations, rules);
		}

	}

	// One of each for every stack that answers a rejection: the servlet and reactive
	// handlers, the gateway's. Nested, so that applications without spring-web never
	// load them.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication
	@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
	static class ResponseConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitHeaders rateLimitHeaders(LimiterProperties properties) {
			return new RateLimitHeaders(properties.getWeb().getHeaders());
		}

		@Bean
		@ConditionalOnMissingBean
		RateLimitResponses rateLimitResponses(RateLimitHeaders rateLimitHeaders, LimiterProperties properties) {
			return new RateLimitResponses(rateLimitHeaders,
					HttpStatusCode.valueOf(properties.getFailure().getStatus()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
	static class AspectConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static RateLimitAnnotationValidator rateLimitAnnotationValidator(
				ObjectProvider<RateLimitOperationSource> operationSource) {
			return new RateLimitAnnotationValidator(operationSource);
		}

		@Bean
		@ConditionalOnMissingBean
		RateLimitOperationSource rateLimitOperationSource(LimitResolver limitResolver, BeanFactory beanFactory) {
			return new RateLimitOperationSource(new RateLimitAnnotationParser(limitResolver, beanFactory));
		}

		// Static and light: auto-proxying creates advisors while post-processors are
		// still being created; the aspect and its store come later, on first use.
		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static RateLimitAdvisor rateLimitAdvisor(ObjectProvider<RateLimitAspect> aspect) {
			return new RateLimitAdvisor(aspect::getObject);
		}

		// The requests of gateway routes, decided as annotated calls are; used by the
		// gateway modules.
		@Bean
		@ConditionalOnMissingBean
		RouteCalls limiterRouteCalls(LimitResolver limitResolver, RateLimitOperationSource operationSource,
				CallPipeline pipeline) {
			return new RouteCalls(limitResolver, operationSource, pipeline);
		}

		// The rules by path of limiter.web.rules, checked at startup; the web stacks'
		// filters decide them.
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnClass(name = "org.springframework.web.util.pattern.PathPattern")
		RuleCalls limiterRuleCalls(RouteCalls routeCalls, RateLimitOperationSource operationSource,
				CallPipeline pipeline, LimitResolver limitResolver, LimiterProperties properties,
				BeanFactory beanFactory) {
			RuleCalls rules = new RuleCalls(routeCalls, operationSource, pipeline, limitResolver);
			rules.setBeanFactory(beanFactory);
			try {
				rules.configure(ruleSettings(properties.getWeb().getRules()));
			}
			catch (IllegalArgumentException ex) {
				throw new LimiterSetupException(ex.getMessage(), "Correct the rule in the configuration.", ex);
			}
			return rules;
		}

		// The calls of surfaces that are not web requests (gRPC): used by their modules.
		@Bean
		@ConditionalOnMissingBean
		SurfaceCalls limiterSurfaceCalls(CallPipeline pipeline, RouteCalls routeCalls, BeanFactory beanFactory) {
			SurfaceCalls calls = new SurfaceCalls(pipeline, routeCalls);
			calls.setBeanFactory(beanFactory);
			return calls;
		}

		// The one decision pipeline: the aspect, the reactive path and the gateways'
		// routes are its adapters.
		@Bean
		@ConditionalOnMissingBean
		CallPipeline limiterCallPipeline(RateLimiter rateLimiter, RateLimitOperationSource operationSource,
				RateLimitKeyResolver keyResolver, ApplicationContext applicationContext,
				ObjectProvider<RateLimitDecisionListener> listeners, ObjectProvider<CurrentRequest> currentRequest,
				ObjectProvider<CallClock> clock, LimiterProperties properties) {
			CallPipeline pipeline = new CallPipeline(rateLimiter, operationSource, keyResolver, applicationContext,
					listeners.orderedStream().toList(), currentRequest.getIfAvailable(),
					clock.getIfAvailable(() -> CallClock.SYSTEM));
			pipeline.setCapacityLimits(properties.getLimits()
				.entrySet()
				.stream()
				.filter((limit) -> limit.getValue().getProtects() == LimiterProperties.Protects.CAPACITY)
				.map(java.util.Map.Entry::getKey)
				.collect(java.util.stream.Collectors.toSet()));
			return pipeline;
		}

		// Named after Limiter: bucket4j-spring-boot-starter registers a "rateLimitAspect"
		// too, and an application moving from one to the other may carry both.
		@Bean
		@ConditionalOnMissingBean
		RateLimitAspect limiterRateLimitAspect(CallPipeline pipeline, LimiterProperties properties,
				ObjectProvider<ReactiveCurrentRequest> reactiveRequest) {
			return new RateLimitAspect(pipeline, properties.getAspectOrder(), reactiveRequest.getIfAvailable());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass({ DispatcherServlet.class, jakarta.servlet.http.HttpServletRequest.class })
	static class WebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitKeyResolver webRateLimitKeyResolver(LimiterProperties properties) {
			return new ServletRateLimitKeyResolver(properties.getWeb().getPathStyle());
		}

		@Bean
		@ConditionalOnMissingBean
		CurrentRequest servletCurrentRequest() {
			return new ServletCurrentRequest();
		}

		@Bean
		@ConditionalOnMissingBean
		RateLimitResponseHeaders rateLimitResponseHeaders(RateLimitHeaders rateLimitHeaders) {
			return new RateLimitResponseHeaders(rateLimitHeaders);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnProperty(name = "limiter.web.refund-server-errors", havingValue = "true")
		ServerErrorRefunds serverErrorRefunds(RateLimiter rateLimiter) {
			return new ServerErrorRefunds(rateLimiter);
		}

		// The rules by path, after Spring Security's filters; lazy, as the pipeline it
		// decides through is told of decisions by it.
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
		RuleFilter limiterRuleFilter(ObjectProvider<RuleCalls> rules, RateLimitResponses responses,
				ApplicationContext context) {
			return new RuleFilter(rules::getObject, responses, () -> context
				.getBeanProvider(
						org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter.class)
				.orderedStream()
				.findFirst()
				.map(org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter::getMessageConverters)
				.orElse(java.util.List.of()));
		}

		@Bean
		@ConditionalOnMissingBean
		@Conditional(OnNoApplicationRateLimitHandlerCondition.class)
		RateLimitExceptionHandler rateLimitExceptionHandler(RateLimitResponses rateLimitResponses) {
			return new RateLimitExceptionHandler(rateLimitResponses);
		}

		@Bean
		@ConditionalOnMissingBean
		@Conditional(OnNoApplicationRateLimitHandlerCondition.class)
		RateLimitExceptionResolver rateLimitExceptionResolver(RateLimitExceptionHandler rateLimitExceptionHandler,
				ApplicationContext context) {
			return new RateLimitExceptionResolver(rateLimitExceptionHandler, context);
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
		@Conditional(OnRejectionCacheBeforeArgumentsCondition.class)
		static class RejectionCacheConfiguration {

			@Bean
			@ConditionalOnMissingBean
			CachedRejectionInterceptor cachedRejectionInterceptor(ObjectProvider<CallPipeline> pipeline,
					ApplicationContext context) {
				return new CachedRejectionInterceptor(pipeline::getObject, context);
			}

			// Last, so that the application's own interceptors run before a rejection.
			@Bean
			WebMvcConfigurer limiterCachedRejectionConfigurer(CachedRejectionInterceptor interceptor) {
				return new WebMvcConfigurer() {

					@Override
					public void addInterceptors(InterceptorRegistry registry) {
						registry.addInterceptor(interceptor).order(Ordered.LOWEST_PRECEDENCE);
					}

				};
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(name = { "org.springframework.web.reactive.DispatcherHandler", "reactor.core.publisher.Mono" })
	static class ReactiveWebConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitKeyResolver webRateLimitKeyResolver(LimiterProperties properties) {
			return new ServerWebExchangeRateLimitKeyResolver(properties.getWeb().getPathStyle());
		}

		@Bean
		@ConditionalOnMissingBean
		ReactiveCurrentRequest serverWebExchangeCurrentRequest() {
			return new ServerWebExchangeCurrentRequest();
		}

		// After every other filter, so that it holds the exchange the handler sees, with
		// the principal that security filters put on it.
		@Bean
		@ConditionalOnMissingBean
		@Order(Ordered.LOWEST_PRECEDENCE)
		ServerWebExchangeContextFilter serverWebExchangeContextFilter() {
			return new ServerWebExchangeContextFilter();
		}

		@Bean
		@ConditionalOnMissingBean
		ReactiveResponseHeaders reactiveResponseHeaders(RateLimitHeaders rateLimitHeaders) {
			return new ReactiveResponseHeaders(rateLimitHeaders);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnProperty(name = "limiter.web.refund-server-errors", havingValue = "true")
		ReactiveServerErrorRefunds reactiveServerErrorRefunds(RateLimiter rateLimiter) {
			return new ReactiveServerErrorRefunds(rateLimiter);
		}

		// The rules by path, after Spring Security's filter; lazy, as the pipeline it
		// decides through is told of decisions by it.
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
		RuleWebFilter limiterRuleWebFilter(ObjectProvider<RuleCalls> rules, ReactiveRejections rejections) {
			return new RuleWebFilter(rules::getObject, rejections);
		}

		// Writes every reactive surface's answer to a rejection: annotated handlers' and
		// gateway routes'.
		@Bean
		@ConditionalOnMissingBean
		ReactiveRejections limiterReactiveRejections(RateLimitResponses rateLimitResponses,
				ObjectProvider<ServerCodecConfigurer> serverCodecConfigurer) {
			return new ReactiveRejections(rateLimitResponses,
					() -> serverCodecConfigurer.getIfAvailable(ServerCodecConfigurer::create));
		}

		@Bean
		@ConditionalOnMissingBean
		@Conditional(OnNoApplicationRateLimitHandlerCondition.class)
		ReactiveRateLimitExceptionHandler reactiveRateLimitExceptionHandler(ReactiveRejections rejections) {
			return new ReactiveRateLimitExceptionHandler(rejections);
		}

		// Ahead of WebFlux's own adapter: a remembered rejection is answered before the
		// handler's arguments are resolved, where Limiter's handler would answer it.
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
		@Conditional(OnRejectionCacheBeforeArgumentsCondition.class)
		CachedRejectionHandlerAdapter limiterCachedRejectionHandlerAdapter(ObjectProvider<CallPipeline> pipeline,
				ReactiveCurrentRequest requests, ReactiveRejections rejections, ApplicationContext context) {
			return new CachedRejectionHandlerAdapter(pipeline::getObject, requests, rejections, context);
		}

	}

}
