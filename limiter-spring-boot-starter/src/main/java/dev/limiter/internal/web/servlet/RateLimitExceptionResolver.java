package dev.limiter.internal.web.servlet;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.method.ControllerAdviceBean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.handler.HandlerExceptionResolverComposite;
import org.springframework.web.servlet.mvc.method.annotation.ExceptionHandlerExceptionResolver;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

import dev.limiter.CostExceedsLimitException;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;

/**
 * Writes the response of a rejection straight to the servlet response whenever Spring
 * MVC's exception resolution would pick {@link RateLimitExceptionHandler}: the same
 * status, headers and {@code application/problem+json} bytes, through the same message
 * converter, without looking up and invoking a handler method per rejection. A body is
 * serialized once per distinct problem (the same limit, path, message and seconds to
 * wait), and its bytes are written again for the next rejections with the same problem.
 * <p>
 * A rate limiter exists to shed load cheaply, and a rejection answered from the rejection
 * cache spent most of its time in that lookup and invocation. Whenever the answer could
 * differ from the handler's, the resolver steps aside and Spring MVC resolves the
 * exception as usual: when the controller or an advice ahead of Limiter's handles the
 * exception, when the application has {@link ResponseBodyAdvice} or error-response
 * interceptors, when the handler is not an annotated controller method, and when the
 * request path ends in a file extension or path parameters (Spring MVC may then add a
 * {@code Content-Disposition} header).
 */
public class RateLimitExceptionResolver implements HandlerExceptionResolver, Ordered {

	/**
	 * The order of this resolver: just ahead of Spring MVC's own resolvers (order 0), so
	 * that resolvers an application orders earlier still come first.
	 */
	public static final int ORDER = -1;

	private final RateLimitExceptionHandler handler;

	private final ApplicationContext context;

	private final Map<Class<?>, Boolean> exceededByHandlerType = new ConcurrentHashMap<>();

	private final Map<Class<?>, Boolean> unavailableByHandlerType = new ConcurrentHashMap<>();

	private final ServletRejections rejections = new ServletRejections();

	private volatile Setup setup;

	/**
	 * Create the resolver.
	 * @param handler the handler whose answers this resolver writes
	 * @param context the context that holds Spring MVC's exception resolvers
	 */
	public RateLimitExceptionResolver(RateLimitExceptionHandler handler, ApplicationContext context) {
		if (handler == null) {
			throw new IllegalArgumentException("handler must not be null");
		}
		if (context == null) {
			throw new IllegalArgumentException("context must not be null");
		}
		this.handler = handler;
		this.context = context;
	}

	@Override
	public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
			Exception ex) {
		// a cost no limit holds is rare and never cached: Spring MVC's own resolution
		// answers it through the handler
		if (!(ex instanceof RateLimitExceededException) || ex instanceof CostExceedsLimitException
				|| !(handler instanceof HandlerMethod handlerMethod) || response.isCommitted() || !plainPath(request)) {
			return null;
		}
		Setup setup = setup();
		if (setup.converter == null) {
			return null;
		}
		Map<Class<?>, Boolean> answered = (ex instanceof RateLimitUnavailableException) ? this.unavailableByHandlerType
				: this.exceededByHandlerType;
		Class<?> handlerType = handlerMethod.getBeanType();
		if (!answered.computeIfAbsent(handlerType, (type) -> answersFirst(setup, handlerMethod, ex.getClass()))) {
			return null;
		}
		try {
			if (this.handler.getClass() == RateLimitExceptionHandler.class) {
				write((RateLimitExceededException) ex, request, response, setup.converter);
			}
			else {
				// A subclass may answer differently: ask it for its response.
				write((ex instanceof RateLimitUnavailableException unavailable)
						? this.handler.handleRateLimitUnavailable(unavailable)
						: this.handler.handleRateLimitExceeded((RateLimitExceededException) ex), request, response,
						setup.converter);
			}
		}
		catch (Exception writeFailure) {
			// As when the handler method fails: Spring MVC resolves the original
			// exception with the other resolvers.
			return null;
		}
		return new ModelAndView();
	}

	/**
	 * Write the answer of Limiter's own handler: the headers straight onto the servlet
	 * response, in the order the handler's {@code ResponseEntity} carries them, then the
	 * body.
	 */
	private void write(RateLimitExceededException ex, HttpServletRequest request, HttpServletResponse response,
			HttpMessageConverter<?> converter) throws IOException {
		ProblemDetail problem = this.handler.responses().answer(ex, request.getRequestURI(), response::setHeader);
		response.setStatus(problem.getStatus());
		writeBody(problem, MediaType.APPLICATION_PROBLEM_JSON, request, response, converter);
	}

	/** Write the answer of a subclass of the handler, as Spring MVC would. */
	private void write(ResponseEntity<ProblemDetail> entity, HttpServletRequest request, HttpServletResponse response,
			HttpMessageConverter<?> converter) throws IOException {
		ServletServerHttpResponse output = new ServletServerHttpResponse(response);
		HttpHeaders headers = output.getHeaders();
		entity.getHeaders().forEach(headers::put);
		response.setStatus(entity.getStatusCode().value());
		writeBody(entity.getBody(), entity.getHeaders().getContentType().removeQualityValue(), request, response,
				converter);
	}

	private void writeBody(ProblemDetail problem, MediaType contentType, HttpServletRequest request,
			HttpServletResponse response, HttpMessageConverter<?> converter) throws IOException {
		if (problem.getInstance() == null) {
			// A subclass's problem, completed as Spring MVC completes it.
			problem.setInstance(URI.create(request.getRequestURI()));
		}
		this.rejections.write(problem, contentType, request, response, converter);
	}

	/**
	 * Return whether Spring MVC's exception resolution would pick Limiter's handler for
	 * this exception type thrown by this controller: no handler of the controller itself
	 * and no advice ahead of Limiter's handles it.
	 */
	private boolean answersFirst(Setup setup, HandlerMethod handlerMethod, Class<? extends Exception> exceptionType) {
		if (new ExceptionHandlerMethodResolver(handlerMethod.getBeanType())
			.resolveMethodByExceptionType(exceptionType) != null) {
			return false;
		}
		Class<?> handlerType = handlerMethod.getBeanType();
		if (java.lang.reflect.Proxy.isProxyClass(handlerType)) {
			handlerType = org.springframework.aop.support.AopUtils.getTargetClass(handlerMethod.getBean());
		}
		for (Map.Entry<ControllerAdviceBean, ExceptionHandlerMethodResolver> entry : setup.advice.entrySet()) {
			ControllerAdviceBean advice = entry.getKey();
			if (advice.isApplicableToBeanType(handlerType)
					&& entry.getValue().resolveMethodByExceptionType(exceptionType) != null) {
				return advice.resolveBean() == this.handler;
			}
		}
		return false;
	}

	private Setup setup() {
		Setup setup = this.setup;
		if (setup == null) {
			setup = Setup.of(this.context);
			this.setup = setup;
		}
		return setup;
	}

	/**
	 * Whether the last path segment has neither a dot nor path parameters: Spring MVC
	 * adds a {@code Content-Disposition} header to bodies for some of those.
	 */
	private static boolean plainPath(HttpServletRequest request) {
		String uri = request.getRequestURI();
		if (uri == null) {
			return false;
		}
		for (int i = uri.length() - 1; i >= 0; i--) {
			char c = uri.charAt(i);
			if (c == '/') {
				return true;
			}
			if (c == '.' || c == ';' || c == '%') {
				return false;
			}
		}
		return true;
	}

	/**
	 * What the resolver learns from Spring MVC once: the advice in the order exception
	 * resolution tries it, and the converter that writes a problem, or none when the
	 * resolver must step aside for every call.
	 */
	private record Setup(Map<ControllerAdviceBean, ExceptionHandlerMethodResolver> advice,
			HttpMessageConverter<?> converter) {

		private static final Setup NONE = new Setup(Map.of(), null);

		static Setup of(ApplicationContext context) {
			ExceptionHandlerExceptionResolver resolver = exceptionHandlerResolver(context);
			if (resolver == null || !errorResponseInterceptors(resolver).isEmpty() || hasResponseBodyAdvice(context)) {
				return NONE;
			}
			for (HttpMessageConverter<?> converter : resolver.getMessageConverters()) {
				if (ServletRejections.writesProblems(converter)) {
					return new Setup(resolver.getExceptionHandlerAdviceCache(), converter);
				}
			}
			return NONE;
		}

		private static ExceptionHandlerExceptionResolver exceptionHandlerResolver(ApplicationContext context) {
			for (HandlerExceptionResolver resolver : BeanFactoryUtils
				.beansOfTypeIncludingAncestors(context, HandlerExceptionResolver.class, true, false)
				.values()) {
				if (resolver instanceof ExceptionHandlerExceptionResolver found) {
					return found;
				}
				if (resolver instanceof HandlerExceptionResolverComposite composite) {
					for (HandlerExceptionResolver nested : composite.getExceptionResolvers()) {
						if (nested instanceof ExceptionHandlerExceptionResolver found) {
							return found;
						}
					}
				}
			}
			return null;
		}

		/** The error-response interceptors (Spring Framework 7), none before. */
		@SuppressWarnings("unchecked")
		private static List<Object> errorResponseInterceptors(ExceptionHandlerExceptionResolver resolver) {
			Method getter = ReflectionUtils.findMethod(ExceptionHandlerExceptionResolver.class,
					"getErrorResponseInterceptors");
			return (getter != null) ? (List<Object>) ReflectionUtils.invokeMethod(getter, resolver) : List.of();
		}

		private static boolean hasResponseBodyAdvice(ApplicationContext context) {
			for (String name : context.getBeanNamesForAnnotation(ControllerAdvice.class)) {
				Class<?> type = context.getType(name);
				if (type != null && ResponseBodyAdvice.class.isAssignableFrom(type)) {
					return true;
				}
			}
			return false;
		}

	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
