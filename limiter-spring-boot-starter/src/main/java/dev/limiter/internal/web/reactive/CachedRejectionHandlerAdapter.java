package dev.limiter.internal.web.reactive;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;

import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.web.bind.support.WebBindingInitializer;
import org.springframework.web.method.ControllerAdviceBean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.server.ServerWebExchange;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.call.ReactiveDecisions;
import dev.limiter.internal.key.ReactiveCurrentRequest;
import dev.limiter.internal.web.EarlyRejections;
import dev.limiter.internal.web.RequestArguments;

/**
 * Answers a caller whom the limiter already knows to be over a WebFlux handler method's
 * limits before WebFlux resolves the method's arguments and invokes it
 * ({@link EarlyRejections}), as the servlet stack's interceptor does: the same 429,
 * written by {@link ReactiveRejections}, without the handler's invocation and WebFlux's
 * exception resolution. Ahead of {@code RequestMappingHandlerAdapter}, to which it hands
 * every other call.
 * <p>
 * Only where Limiter's own exception handler would write that answer: a controller with
 * an {@code @ExceptionHandler} of its own for the rejection, or advice ordered ahead of
 * Limiter's that handles it, keeps every rejection, so this adapter leaves those methods
 * alone.
 */
public final class CachedRejectionHandlerAdapter implements HandlerAdapter, Ordered {

	private final EarlyRejections early;

	private final ReactiveCurrentRequest requests;

	private final ReactiveRejections rejections;

	private final ApplicationContext context;

	private final Map<Method, Boolean> answered = new ConcurrentHashMap<>();

	private volatile RequestMappingHandlerAdapter delegate;

	/**
	 * Create the adapter.
	 * @param pipeline supplies the pipeline that decides the methods' calls, on first use
	 * @param requests finds the exchange a call serves, with its principal resolved
	 * @param rejections writes the answers
	 * @param context the context of the application's controller advice and WebFlux's
	 * handler adapter
	 */
	public CachedRejectionHandlerAdapter(Supplier<CallPipeline> pipeline, ReactiveCurrentRequest requests,
			ReactiveRejections rejections, ApplicationContext context) {
		this.early = new EarlyRejections(pipeline, context, () -> {
			WebBindingInitializer initializer = delegate().getWebBindingInitializer();
			return (initializer != null) ? List.of(initializer) : List.of();
		});
		this.requests = requests;
		this.rejections = rejections;
		this.context = context;
	}

	@Override
	public int getOrder() {
		return 0;
	}

	@Override
	public boolean supports(Object handler) {
		if (!(handler instanceof HandlerMethod method)) {
			return false;
		}
		Boolean answered = this.answered.get(method.getMethod());
		return (answered != null) ? answered : this.answered.computeIfAbsent(method.getMethod(),
				(key) -> this.early.answers(method) && answeredByLimiter(method.getBeanType()));
	}

	@Override
	public Mono<HandlerResult> handle(ServerWebExchange exchange, Object handler) {
		HandlerMethod method = (HandlerMethod) handler;
		return this.requests.get().map(Optional::of).defaultIfEmpty(Optional.empty()).flatMap((request) -> {
			try {
				this.early.reject(method, new ExchangeArguments(exchange), () -> request.orElse(null));
			}
			catch (RateLimitExceededException rejection) {
				return ReactiveDecisions.answeredAtOnce(this.rejections.write(exchange, rejection))
					.then(Mono.<HandlerResult>empty());
			}
			catch (RuntimeException ex) {
				// a key that cannot be built here fails the call where it always has,
				// inside the handler, so that the controller's own handlers see it
				return delegate().handle(exchange, handler);
			}
			return delegate().handle(exchange, handler);
		});
	}

	/**
	 * Return whether Limiter's own exception handler answers a controller's rejections:
	 * the controller has none of its own for them, and no advice ordered ahead of
	 * Limiter's handles them.
	 */
	private boolean answeredByLimiter(Class<?> controllerType) {
		if (handles(controllerType)) {
			return false;
		}
		for (ControllerAdviceBean advice : ControllerAdviceBean.findAnnotatedBeans(this.context)) {
			Class<?> type = advice.getBeanType();
			if (type == ReactiveRateLimitExceptionHandler.class) {
				return true;
			}
			if (type != null && advice.isApplicableToBeanType(controllerType) && handles(type)) {
				return false;
			}
		}
		return false;
	}

	private static boolean handles(Class<?> type) {
		ExceptionHandlerMethodResolver resolver = new ExceptionHandlerMethodResolver(type);
		return resolver.resolveMethodByExceptionType(RateLimitExceededException.class) != null
				|| resolver.resolveMethodByExceptionType(RateLimitUnavailableException.class) != null;
	}

	private RequestMappingHandlerAdapter delegate() {
		RequestMappingHandlerAdapter delegate = this.delegate;
		if (delegate == null) {
			delegate = this.context.getBean(RequestMappingHandlerAdapter.class);
			this.delegate = delegate;
		}
		return delegate;
	}

	/** The exchange as WebFlux binds a handler's {@code String} arguments from it. */
	private record ExchangeArguments(ServerWebExchange exchange) implements RequestArguments.Request {

		@Override
		public List<String> parameter(String name) {
			// WebFlux binds @RequestParam from the query only
			return this.exchange.getRequest().getQueryParams().get(name);
		}

		@Override
		public Map<?, ?> pathVariables() {
			return this.exchange.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
		}

		@Override
		public List<String> header(String name) {
			return this.exchange.getRequest().getHeaders().get(name);
		}

	}

}
