package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.text.MessageFormat;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.MessageSource;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.core.Ordered;

import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;
import dev.limiter.RateLimiter;
import dev.limiter.call.RateLimitDecisionListener;
import dev.limiter.call.RateLimitObserver;
import dev.limiter.internal.call.CallPreparation.PreparedCall;
import dev.limiter.internal.key.CurrentRequest;
import dev.limiter.internal.key.ReactiveCurrentRequest;
import dev.limiter.internal.offenders.RejectionTally;
import dev.limiter.key.RateLimitKeyResolver;

/**
 * The advisor that enforces {@link dev.limiter.annotation.RateLimit @RateLimit}: it asks
 * the {@link RateLimiter} once per call for all the limits of the method and its class,
 * then runs the method or throws {@link RateLimitExceededException}.
 * <p>
 * A static Spring advisor, like {@code @Cacheable}'s: which methods it applies to is
 * decided once per method from the annotations (those of the method, and of its class for
 * public methods), never by an AspectJ expression, so no call pays for pointcut matching
 * or for reflective advice invocation, and no first call reads class files. Every
 * applicable annotation is read through its {@link RateLimitOperationSource}.
 * <p>
 * The message of a rejection is the rejecting annotation's {@code message}; a message in
 * braces, such as <code>{orders.too-many}</code>, is a code looked up in the
 * {@link MessageSource} for the current locale, and an empty one looks up
 * {@value #DEFAULT_MESSAGE_CODE}, falling back to the standard message. Messages receive
 * the limit's name, threshold, period (such as {@code 30s}) and the seconds to wait as
 * arguments {0} to {3}; a plain message with braces is formatted with them too.
 * <p>
 * A {@code condition} that is false skips the limits. Limits in shadow mode are decided
 * after the enforced ones, in a call of their own, and never reject; a call that ends in
 * one of the {@code refundOn} exceptions gives its permits back.
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

	private static final Logger logger = LoggerFactory.getLogger(RateLimitAspect.class);

	private final RateLimiter rateLimiter;

	private final RateLimitOperationSource operationSource;

	private final CurrentRequest currentRequest;

	private final ReactiveCurrentRequest reactiveRequest;

	private final MessageSource messageSource;

	private final List<RateLimitDecisionListener> listeners;

	private volatile RejectionTally rejections = RejectionTally.NONE;

	private final int order;

	private final ShadowLog shadowLog = new ShadowLog();

	private volatile RateLimitObserver observer = RateLimitObserver.NONE;

	private final CallPreparation preparation;

	/**
	 * Create the aspect.
	 * @param rateLimiter the engine that decides
	 * @param operationSource the source of the methods' limits
	 * @param keyResolver the resolver of the default key
	 * @param messageSource the source of localized messages, or {@code null}
	 * @param listeners told of every decision
	 * @param order the order of this aspect among other advice
	 * @param currentRequest finds the request being served, or {@code null} outside web
	 * applications
	 */
	public RateLimitAspect(RateLimiter rateLimiter, RateLimitOperationSource operationSource,
			RateLimitKeyResolver keyResolver, MessageSource messageSource, List<RateLimitDecisionListener> listeners,
			int order, CurrentRequest currentRequest) {
		this(rateLimiter, operationSource, keyResolver, messageSource, listeners, order, currentRequest, null);
	}

	/**
	 * Create the aspect, which also limits methods that return a {@code Mono} or
	 * {@code Flux} when given a reactive request lookup: on subscription, without
	 * blocking.
	 * @param rateLimiter the engine that decides
	 * @param operationSource the source of the methods' limits
	 * @param keyResolver the resolver of the default key
	 * @param messageSource the source of localized messages, or {@code null}
	 * @param listeners told of every decision
	 * @param order the order of this aspect among other advice
	 * @param currentRequest finds the request being served, or {@code null} outside web
	 * applications
	 * @param reactiveRequest finds the request of a reactive subscription, or
	 * {@code null} outside WebFlux applications
	 */
	public RateLimitAspect(RateLimiter rateLimiter, RateLimitOperationSource operationSource,
			RateLimitKeyResolver keyResolver, MessageSource messageSource, List<RateLimitDecisionListener> listeners,
			int order, CurrentRequest currentRequest, ReactiveCurrentRequest reactiveRequest) {
		if (rateLimiter == null) {
			throw new IllegalArgumentException("rateLimiter must not be null");
		}
		if (operationSource == null) {
			throw new IllegalArgumentException("operationSource must not be null");
		}
		if (keyResolver == null) {
			throw new IllegalArgumentException("keyResolver must not be null");
		}
		this.rateLimiter = rateLimiter;
		this.operationSource = operationSource;
		this.preparation = new CallPreparation(keyResolver, operationSource.getOverrides());
		this.currentRequest = (currentRequest != null) ? currentRequest : CurrentRequest.NONE;
		this.reactiveRequest = reactiveRequest;
		this.messageSource = messageSource;
		this.listeners = (listeners != null) ? List.copyOf(listeners) : List.of();
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
		AnnotatedOperation operation = this.operationSource.getOperation(method, targetClass);
		if (operation == null) {
			return call.proceed();
		}
		if (this.reactiveRequest != null && ReactiveRateLimitCall.isReactive(method)) {
			return ReactiveRateLimitCall.rateLimit(this, call, operation, targetClass);
		}
		PreparedCall prepared = this.preparation.prepare(operation, targetClass, call.getArguments(),
				this.currentRequest);
		if (prepared == null) {
			return call.proceed();
		}
		operation = prepared.operation();
		String key = prepared.key();
		Decision decision = null;
		if (!operation.getEnforcedLimits().isEmpty()) {
			long start = System.nanoTime();
			Object observation = this.observer.start(operation);
			try {
				decision = this.rateLimiter.acquire(key, operation.getPermits(), operation.getEnforcedLimits());
				if (operation.waitsFor(decision)) {
					// Once: the wait is the exact time until the call fits, unless
					// another
					// caller takes the turn first, and then the rejection stands.
					Thread.sleep(decision.retryAfter().toMillis(), decision.retryAfter().toNanosPart() % 1_000_000);
					decision = this.rateLimiter.acquire(key, operation.getPermits(), operation.getEnforcedLimits());
				}
			}
			catch (RuntimeException | InterruptedException ex) {
				this.observer.stop(observation, null, ex);
				throw ex;
			}
			this.observer.stop(observation, decision, null);
			enforce(prepared, decision, System.nanoTime() - start);
		}
		Decision shadow = null;
		if (!operation.getShadowLimits().isEmpty()) {
			shadow = this.rateLimiter.acquire(operation.shadowKey(key), operation.getPermits(),
					operation.getShadowLimits());
			watched(operation, shadow);
		}
		Object result;
		try {
			result = call.proceed();
		}
		catch (Throwable ex) {
			if (operation.refundsOn(ex)) {
				release(decision);
				release(shadow);
			}
			throw ex;
		}
		if (operation.getCharge() != null) {
			settle(prepared, decision, shadow, this.preparation.cost(prepared, result));
		}
		return result;
	}

	/** Return what a call turned out to cost, from its charge, or -1 for none. */
	long cost(PreparedCall prepared, Object result) {
		return this.preparation.cost(prepared, result);
	}

	/**
	 * Record the difference between what a call reserved and what it cost under its
	 * enforced and shadowed limits, and tell the listeners; a charge never fails the
	 * call.
	 */
	void settle(PreparedCall prepared, Decision enforced, Decision shadow, long cost) {
		long more = cost - prepared.operation().getPermits();
		if (cost < 0 || more == 0) {
			return;
		}
		try {
			if (enforced != null && enforced.isAllowed()) {
				charged(prepared, this.rateLimiter.charge(enforced, more));
			}
			if (shadow != null && shadow.isAllowed()) {
				this.rateLimiter.charge(shadow, more);
			}
		}
		catch (RuntimeException ex) {
			chargeLost(prepared, ex);
		}
	}

	/** Tell the listeners of the decision after a charge. */
	void charged(PreparedCall prepared, Decision charged) {
		for (RateLimitDecisionListener listener : this.listeners) {
			listener.onCharge(prepared.invocation(), charged);
		}
	}

	void chargeLost(PreparedCall prepared, Throwable ex) {
		logger.warn("The charge of a call to {} was not recorded; the call keeps the permits it reserved",
				prepared.operation().getDescription(), ex);
	}

	/**
	 * Throw the rejection of a call that the limiter already knows, before the call's
	 * arguments exist, such as before Spring MVC resolves them; do nothing otherwise,
	 * leaving the decision to the call itself. Only methods whose limits and key need no
	 * argument are answered here (no key expression, condition or plan, and a key
	 * resolver that reads no argument), and only with a rejection the method would not
	 * wait out. Listeners and the observer are told as for a rejection of the call, with
	 * no arguments.
	 * @param method the method about to be called
	 * @param targetClass the class of the target object
	 * @throws RateLimitExceededException if the limiter knows the call is rejected
	 */
	public void rejectCached(Method method, Class<?> targetClass) {
		rejectCached(method, targetClass, null);
	}

	/**
	 * Throw the rejection of a call that the limiter already knows, from the arguments
	 * its key, condition and plan read ({@link #argumentsRead}), before the others are
	 * resolved; do nothing otherwise, leaving the decision to the call itself.
	 * @param method the method about to be called
	 * @param targetClass the class of the target object
	 * @param arguments the call's arguments at the indexes its limits read, {@code null}
	 * elsewhere; {@code null} for a method whose limits read none
	 * @throws RateLimitExceededException if the limiter knows the call is rejected
	 */
	public void rejectCached(Method method, Class<?> targetClass, Object[] arguments) {
		if (!this.preparation.keysWithoutArguments()) {
			return;
		}
		AnnotatedOperation operation = this.operationSource.getOperation(method, targetClass);
		if (operation == null) {
			return;
		}
		PreparedCall prepared = (arguments != null)
				? this.preparation.prepare(operation, targetClass, arguments, this.currentRequest)
				: this.preparation.prepareWithoutArguments(operation, targetClass, this.currentRequest);
		if (prepared != null) {
			rejectKnown(prepared);
		}
	}

	/**
	 * Return the indexes of the parameters whose arguments a method's limits read, so
	 * that a caller can answer a known rejection before the others are resolved.
	 * @param method the method
	 * @param targetClass the class of the target object
	 * @return the indexes (empty when the limits read none), or {@code null} when the
	 * method is not limited or its key resolver reads the arguments
	 */
	public BitSet argumentsRead(Method method, Class<?> targetClass) {
		AnnotatedOperation operation = this.operationSource.getOperation(method, targetClass);
		return (operation != null && this.preparation.keysWithoutArguments()) ? operation.argumentsRead() : null;
	}

	/**
	 * Throw the rejection of a prepared call that the limiter already knows without
	 * asking the store, unless the call would wait it out; do nothing otherwise. The
	 * listeners and the observer are told as for any rejection.
	 * @param prepared the call, under its plan's and any override's numbers
	 * @throws RateLimitExceededException if the limiter knows the call is rejected
	 */
	void rejectKnown(PreparedCall prepared) {
		AnnotatedOperation applied = prepared.operation();
		if (applied.getEnforcedLimits().isEmpty()) {
			return;
		}
		long start = System.nanoTime();
		Decision known = this.rateLimiter.cachedRejection(prepared.key(), applied.getPermits(),
				applied.getEnforcedLimits());
		if (known == null || applied.waitsFor(known)) {
			return;
		}
		this.observer.stop(this.observer.start(applied), known, null);
		enforce(prepared, known, System.nanoTime() - start);
	}

	/** Prepare a call of a method: plan, condition, key. */
	PreparedCall prepare(AnnotatedOperation operation, Class<?> targetClass, Object[] arguments,
			CurrentRequest request) {
		return this.preparation.prepare(operation, targetClass, arguments, request);
	}

	/**
	 * Tell the listeners of the decision of the enforced limits, and throw when it
	 * rejects the call.
	 */
	void enforce(PreparedCall prepared, Decision decision, long nanos) {
		told(prepared, decision, nanos);
		if (!decision.isAllowed()) {
			throw rejection(prepared, decision);
		}
	}

	/**
	 * Tell the listeners of the decision of the enforced limits, and count a rejection
	 * for the list of the callers rejected most.
	 */
	void told(PreparedCall prepared, Decision decision, long nanos) {
		for (RateLimitDecisionListener listener : this.listeners) {
			listener.onDecision(prepared.invocation(), decision, nanos);
		}
		if (!decision.isAllowed() && decision.limit() != null) {
			this.rejections.rejected(decision.limit().name(), prepared.key());
		}
	}

	/**
	 * Return the exception that answers a rejected call: unavailable when a fail-closed
	 * limit rejected it because the store could not answer, exceeded otherwise.
	 */
	RuntimeException rejection(PreparedCall prepared, Decision decision) {
		if (decision.policy() == FailurePolicy.FAIL_CLOSED) {
			return new RateLimitUnavailableException(unavailableMessage(decision), prepared.key(), decision);
		}
		return new RateLimitExceededException(message(prepared.operation(), decision), prepared.key(), decision);
	}

	/** Prepare a request on a gateway route: plan, overrides, key. */
	PreparedCall prepareRoute(AnnotatedOperation route, String plan, String caller, Object request) {
		return this.preparation.prepareRoute(route, plan, caller, request);
	}

	/** Tell the listeners and the log of the decision of the shadowed limits. */
	void watched(AnnotatedOperation operation, Decision shadow) {
		for (RateLimitDecisionListener listener : this.listeners) {
			listener.onShadowDecision(operation, shadow);
		}
		if (!shadow.isAllowed()) {
			this.shadowLog.rejected(operation, shadow);
		}
	}

	/**
	 * Observe every decision of the enforced limits, such as with Micrometer's
	 * observations.
	 * @param observer the observer, or {@code null} for none
	 */
	public void setObserver(RateLimitObserver observer) {
		this.observer = (observer != null) ? observer : RateLimitObserver.NONE;
	}

	/**
	 * Count every enforced rejection by limit and key, such as for the endpoint's list of
	 * the callers rejected most.
	 * @param rejections the tally, or {@code null} for none
	 */
	public void setRejectionTally(RejectionTally rejections) {
		this.rejections = (rejections != null) ? rejections : RejectionTally.NONE;
	}

	RateLimitObserver observer() {
		return this.observer;
	}

	RateLimiter rateLimiter() {
		return this.rateLimiter;
	}

	ReactiveCurrentRequest reactiveRequest() {
		return this.reactiveRequest;
	}

	void release(Decision decision) {
		if (decision != null && decision.isAllowed()) {
			this.rateLimiter.release(decision);
		}
	}

	private String unavailableMessage(Decision decision) {
		if (this.messageSource != null) {
			Object[] arguments = { decision.limit().name(), Long.toString(decision.retryAfterSeconds()) };
			String message = this.messageSource.getMessage(UNAVAILABLE_MESSAGE_CODE, arguments, null,
					LocaleContextHolder.getLocale());
			if (message != null) {
				return message;
			}
		}
		return RateLimitUnavailableException.standardMessage(decision);
	}

	private String message(AnnotatedOperation operation, Decision decision) {
		String template = operation.getMessage(decision.limit());
		boolean code = template.length() > 2 && template.startsWith("{") && template.endsWith("}");
		Limit limit = decision.limit();
		// Strings, so that numbers are not grouped by the locale ("3,600").
		Object[] arguments = { limit.name(), Long.toString(limit.threshold()), limit.periodText(),
				Long.toString(decision.retryAfterSeconds()) };
		Locale locale = LocaleContextHolder.getLocale();
		if (!template.isEmpty() && !code) {
			return (template.indexOf('{') >= 0) ? new MessageFormat(template, locale).format(arguments) : template;
		}
		if (this.messageSource != null) {
			String messageCode = code ? template.substring(1, template.length() - 1) : DEFAULT_MESSAGE_CODE;
			String message = this.messageSource.getMessage(messageCode, arguments, null, locale);
			if (message != null) {
				return message;
			}
		}
		return RateLimitExceededException.standardMessage(decision);
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	/**
	 * Logs the calls that shadowed limits would have rejected, at most once per operation
	 * every {@value #INTERVAL_NANOS} nanoseconds, with the number since the last line:
	 * never a line per call under load.
	 */
	static final class ShadowLog {

		private static final long INTERVAL_NANOS = 10_000_000_000L;

		private final Map<AnnotatedOperation, long[]> counts = new ConcurrentHashMap<>();

		void rejected(AnnotatedOperation operation, Decision decision) {
			long[] state = this.counts.computeIfAbsent(operation, (o) -> new long[] { 0, Long.MIN_VALUE });
			long count;
			synchronized (state) {
				state[0]++;
				long now = System.nanoTime();
				if (state[1] != Long.MIN_VALUE && now - state[1] < INTERVAL_NANOS) {
					return;
				}
				count = state[0];
				state[0] = 0;
				state[1] = now;
			}
			logger.info("Shadow limit {} of {} would have rejected {} call(s) since its last report (the latest: {})",
					decision.limit(), operation.getDescription(), count, decision);
		}

	}

}
