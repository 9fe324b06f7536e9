package dev.limiter.internal.call;

import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.Ordered;

import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.internal.key.ReactiveCurrentRequest;

/**
 * The advisor that enforces {@link dev.limiter.annotation.RateLimit @RateLimit}: the
 * adapter of annotated methods to the {@link CallPipeline}, which decides once per call
 * for all the limits of the method and its class; the aspect runs the method or throws
 * {@link RateLimitExceededException}.
 * <p>
 * A static Spring advisor, like {@code @Cacheable}'s: which methods it applies to is
 * decided once per method from the annotations (those of the method, and of its class for
 * public methods), never by an AspectJ expression, so no call pays for pointcut matching
 * or for reflective advice invocation, and no first call reads class files. Every
 * applicable annotation is read through its {@link RateLimitOperationSource}.
 * <p>
 * A {@code condition} that is false skips the limits; a call that ends in one of the
 * {@code refundOn} exceptions gives its permits back, and a {@code charge} is settled
 * once the method returns. Methods that return a {@code Mono}, a {@code Flux}, a Kotlin
 * {@code Flow} or that suspend are decided on subscription, without blocking.
 * <p>
 * When the store is unavailable and a fail-closed limit rejects the call, the aspect
 * throws {@link RateLimitUnavailableException} with the message
 * {@value #UNAVAILABLE_MESSAGE_CODE} or a standard one saying so. A key expression that
 * fails at request time falls back to the default key, with a warning in the log.
 */
public class RateLimitAspect implements MethodInterceptor, Ordered {

	/** The message code looked up for annotations without a message. */
	public static final String DEFAULT_MESSAGE_CODE = "limiter.rejected";

	/**
	 * The message code looked up when a fail-closed limit rejects a call because the
	 * store is unavailable; arguments: the limit's name and the seconds to wait.
	 */
	public static final String UNAVAILABLE_MESSAGE_CODE = "limiter.unavailable";

	/**
	 * The message code looked up when a limit that protects capacity
	 * ({@code limiter.limits.<name>.protects: capacity}) refuses a call; arguments: the
	 * limit's name and the seconds to wait.
	 */
	public static final String CAPACITY_MESSAGE_CODE = "limiter.at-capacity";

	private final CallPipeline pipeline;

	private final ReactiveCurrentRequest reactiveRequest;

	private final int order;

	/**
	 * Create the aspect, which also limits methods that return a {@code Mono} or
	 * {@code Flux} when given a reactive request lookup: on subscription, without
	 * blocking.
	 * @param pipeline decides the calls
	 * @param order the order of this aspect among other advice
	 * @param reactiveRequest finds the request of a reactive subscription, or
	 * {@code null} outside WebFlux applications
	 */
	public RateLimitAspect(CallPipeline pipeline, int order, ReactiveCurrentRequest reactiveRequest) {
		if (pipeline == null) {
			throw new IllegalArgumentException("pipeline must not be null");
		}
		this.pipeline = pipeline;
		this.reactiveRequest = reactiveRequest;
		this.order = order;
	}

	/**
	 * Enforce the limits of a rate-limited method.
	 * @param call the call
	 * @return the method's result
	 * @throws Throwable the method's exception, or {@link RateLimitExceededException}
	 */
	@Override
	public Object invoke(MethodInvocation call) throws Throwable {
		Method method = call.getMethod();
		Class<?> targetClass = (call.getThis() != null) ? AopUtils.getTargetClass(call.getThis())
				: method.getDeclaringClass();
		AnnotatedOperation operation = this.pipeline.operations().getOperation(method, targetClass);
		if (operation == null) {
			return call.proceed();
		}
		if (CallHandle.claimDecided(operation)) {
			// a surface (gRPC's interceptor) decided this very call before a proxy
			// between it and the method brought it here
			return call.proceed();
		}
		if (this.reactiveRequest != null && ReactiveRateLimitCall.isReactive(method)) {
			return ReactiveRateLimitCall.rateLimit(this.pipeline, this.reactiveRequest, call, operation, targetClass);
		}
		CallHandle handle = this.pipeline.handle(this.pipeline.prepare(operation, targetClass, call.getArguments()));
		if (handle == null) {
			return call.proceed();
		}
		if (!handle.decide()) {
			throw handle.rejection();
		}
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			handle.end(ex);
			throw ex;
		}
		handle.end(null, Drops.status(result));
		if (handle.charged()) {
			handle.settle(handle.cost(result));
		}
		return result;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

}
