package dev.limiter.aop;

import java.lang.reflect.Method;
import java.text.MessageFormat;
import java.util.List;
import java.util.Locale;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;

import org.springframework.aop.support.AopUtils;
import org.springframework.context.MessageSource;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.core.Ordered;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;

/**
 * The aspect that enforces {@link dev.limiter.annotation.RateLimit @RateLimit}: it asks
 * the {@link RateLimiter} once per call for all the limits of the method and its class,
 * then runs the method or throws {@link RateLimitExceededException}.
 * <p>
 * The annotation is not bound as an advice parameter: {@code @RateLimit} is repeatable,
 * and a method with two of them carries the {@code @RateLimits} container instead, so the
 * aspect reads every applicable annotation through its {@link RateLimitOperationSource}.
 * <p>
 * The message of a rejection is the rejecting annotation's {@code message}; a message in
 * braces, such as <code>{orders.too-many}</code>, is a code looked up in the
 * {@link MessageSource} for the current locale, and an empty one looks up
 * {@value #DEFAULT_MESSAGE_CODE}, falling back to the standard message. Messages receive
 * the limit's name, threshold, period (such as {@code 30s}) and the seconds to wait as
 * arguments {0} to {3}; a plain message with braces is formatted with them too.
 */
@Aspect
public class RateLimitAspect implements Ordered {

	/** The message code looked up for annotations without a message. */
	public static final String DEFAULT_MESSAGE_CODE = "limiter.rejected";

	private final RateLimiter rateLimiter;

	private final RateLimitOperationSource operationSource;

	private final RateLimitKeyResolver keyResolver;

	private final MessageSource messageSource;

	private final List<RateLimitDecisionListener> listeners;

	private final int order;

	/**
	 * Create the aspect.
	 * @param rateLimiter the engine that decides
	 * @param operationSource the source of the methods' limits
	 * @param keyResolver the resolver of the default key
	 * @param messageSource the source of localized messages, or {@code null}
	 * @param listeners told of every decision
	 * @param order the order of this aspect among other advice
	 */
	public RateLimitAspect(RateLimiter rateLimiter, RateLimitOperationSource operationSource,
			RateLimitKeyResolver keyResolver, MessageSource messageSource, List<RateLimitDecisionListener> listeners,
			int order) {
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
		this.keyResolver = keyResolver;
		this.messageSource = messageSource;
		this.listeners = (listeners != null) ? List.copyOf(listeners) : List.of();
		this.order = order;
	}

	/**
	 * Enforce the limits of a rate-limited method.
	 * @param joinPoint the call
	 * @return the method's result
	 * @throws Throwable the method's exception, or {@link RateLimitExceededException}
	 */
	@Around("@annotation(dev.limiter.annotation.RateLimit) || @annotation(dev.limiter.annotation.RateLimits) "
			+ "|| (execution(public * *(..)) && (@within(dev.limiter.annotation.RateLimit) "
			+ "|| @within(dev.limiter.annotation.RateLimits)))")
	public Object rateLimit(ProceedingJoinPoint joinPoint) throws Throwable {
		Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
		Class<?> targetClass = (joinPoint.getTarget() != null) ? AopUtils.getTargetClass(joinPoint.getTarget())
				: method.getDeclaringClass();
		RateLimitOperation operation = this.operationSource.getOperation(method, targetClass);
		if (operation == null) {
			return joinPoint.proceed();
		}
		Object[] arguments = joinPoint.getArgs();
		String key = (operation.getKeyExpression() != null) ? this.operationSource.evaluateKey(operation, arguments)
				: this.keyResolver.resolveKey(operation.getMethod(), targetClass, arguments);
		Decision decision = this.rateLimiter.acquire(key, operation.getPermits(), operation.getLimits());
		for (RateLimitDecisionListener listener : this.listeners) {
			listener.onDecision(operation, decision);
		}
		if (!decision.isAllowed()) {
			throw new RateLimitExceededException(message(operation, decision), key, decision);
		}
		return joinPoint.proceed();
	}

	private String message(RateLimitOperation operation, Decision decision) {
		String template = operation.getMessage(decision.limit());
		boolean code = template.length() > 2 && template.startsWith("{") && template.endsWith("}");
		Limit limit = decision.limit();
		// Strings, so that numbers are not grouped by the locale ("3,600").
		Object[] arguments = { limit.name(), Long.toString(limit.threshold()), format(limit),
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

	private static String format(Limit limit) {
		return limit.period().toString().substring(2).toLowerCase(Locale.ROOT);
	}

	@Override
	public int getOrder() {
		return this.order;
	}

}
