package dev.limiter.internal.web.servlet;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AdvisorChainFactory;
import org.springframework.aop.framework.DefaultAdvisorChainFactory;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

import dev.limiter.internal.call.RateLimitAdvisor;
import dev.limiter.internal.call.RateLimitAspect;

/**
 * Answers a caller whom the limiter already knows to be over a handler method's limits
 * before Spring MVC resolves the method's arguments: the same rejection the method would
 * throw, resolved into the same 429, without reading the request's parameters or body and
 * without calling through the method's proxy.
 * <p>
 * Registered last among the application's interceptors, so that those the application
 * adds (a locale change, an authentication check) still run first. A rejection known here
 * is one the rejection cache remembers; every other call goes on to the method, where
 * {@link RateLimitAspect} decides as before. What a caller can see: a request that would
 * fail argument resolution or validation (a 400) gets the 429 when its caller is blocked.
 * Methods on which other advice runs before Limiter's (method security, say) are left to
 * the call, so that advice keeps its turn.
 */
public class CachedRejectionInterceptor implements HandlerInterceptor {

	private static final AdvisorChainFactory CHAINS = new DefaultAdvisorChainFactory();

	private final Supplier<RateLimitAspect> aspectSupplier;

	private final Map<Method, Boolean> limitedFirst = new ConcurrentHashMap<>();

	private volatile RateLimitAspect aspect;

	/**
	 * Create the interceptor.
	 * @param aspect supplies the aspect that limits the methods, on first use so that the
	 * store is not created with the handler mappings
	 */
	public CachedRejectionInterceptor(Supplier<RateLimitAspect> aspect) {
		if (aspect == null) {
			throw new IllegalArgumentException("aspect must not be null");
		}
		this.aspectSupplier = aspect;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		// A request's first dispatch only: an async dispatch carries the result of a call
		// that was already admitted, whatever the cache has learnt since.
		if (request.getDispatcherType() == DispatcherType.REQUEST && handler instanceof HandlerMethod handlerMethod
				&& limitedFirst(handlerMethod)) {
			aspect().rejectCached(handlerMethod.getMethod(), handlerMethod.getBeanType());
		}
		return true;
	}

	/**
	 * Return whether Limiter's advice is the first advice the handler's bean runs for the
	 * method, decided once per method from the proxy's own interceptor chain. A bean that
	 * is not advised is never limited, so it is not answered here either; advice ordered
	 * ahead of Limiter's (security, say) keeps its turn before every rejection.
	 */
	private boolean limitedFirst(HandlerMethod handlerMethod) {
		return this.limitedFirst.computeIfAbsent(handlerMethod.getMethod(), (method) -> {
			if (!(handlerMethod.getBean() instanceof Advised advised)) {
				return false;
			}
			for (Object interceptor : CHAINS.getInterceptorsAndDynamicInterceptionAdvice(advised, method,
					handlerMethod.getBeanType())) {
				if (interceptor != ExposeInvocationInterceptor.INSTANCE) {
					return Arrays.stream(advised.getAdvisors())
						.anyMatch(
								(advisor) -> advisor instanceof RateLimitAdvisor && advisor.getAdvice() == interceptor);
				}
			}
			return false;
		});
	}

	private RateLimitAspect aspect() {
		RateLimitAspect aspect = this.aspect;
		if (aspect == null) {
			aspect = this.aspectSupplier.get();
			this.aspect = aspect;
		}
		return aspect;
	}

}
