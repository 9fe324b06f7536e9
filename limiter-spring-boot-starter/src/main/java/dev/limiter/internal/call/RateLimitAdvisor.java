package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies {@link RateLimitAspect} to the methods with {@code @RateLimit} or
 * {@code @RateLimits}, and to the public methods of a class that carries one.
 * <p>
 * A static Spring advisor, like {@code @Cacheable}'s: the match is decided once per
 * method from its annotations, so no call pays for pointcut matching or reflective advice
 * invocation, and no first call reads class files (which would block an event loop). The
 * aspect is looked up on first use: auto-proxying asks for advisors while post-processors
 * are still being created, and the aspect's store must not be created that early.
 */
public final class RateLimitAdvisor implements PointcutAdvisor, Ordered, SmartInitializingSingleton {

	private final Supplier<RateLimitAspect> aspect;

	private final MethodInterceptor advice;

	/**
	 * Create the advisor.
	 * @param aspect supplies the aspect on first use
	 */
	public RateLimitAdvisor(Supplier<RateLimitAspect> aspect) {
		if (aspect == null) {
			throw new IllegalArgumentException("aspect must not be null");
		}
		this.aspect = SingletonSupplier.of(aspect);
		this.advice = (call) -> this.aspect.get().invoke(call);
	}

	/**
	 * Resolve the aspect once every singleton exists, before the first call: two first
	 * calls at once would otherwise wait for each other on the resolution's lock, on an
	 * event loop in a WebFlux application.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.aspect.get();
	}

	@Override
	public Pointcut getPointcut() {
		return RateLimitedMethods.INSTANCE;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	@Override
	public boolean isPerInstance() {
		return true;
	}

	/**
	 * Return the aspect's order ({@code limiter.aspect-order}), asked only when a
	 * rate-limited bean is proxied.
	 */
	@Override
	public int getOrder() {
		return this.aspect.get().getOrder();
	}

	private static final class RateLimitedMethods extends StaticMethodMatcherPointcut {

		static final RateLimitedMethods INSTANCE = new RateLimitedMethods();

		private RateLimitedMethods() {
			setClassFilter(RateLimitAnnotationParser::isCandidateClass);
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return RateLimitAnnotationParser.isRateLimited(AopUtils.getMostSpecificMethod(method, targetClass));
		}

	}

}
