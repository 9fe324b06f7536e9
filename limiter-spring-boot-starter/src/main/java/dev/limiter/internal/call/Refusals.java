package dev.limiter.internal.call;

import java.text.MessageFormat;
import java.util.Locale;
import java.util.Set;

import org.springframework.context.MessageSource;
import org.springframework.context.i18n.LocaleContextHolder;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimitUnavailableException;

/**
 * The exception that answers a refused call, whichever the surface, and its message:
 * {@link RateLimitUnavailableException} when a fail-closed limit refused it because the
 * store could not answer, or when a limit that protects capacity refused it;
 * {@link RateLimitExceededException} otherwise.
 * <p>
 * The message of a refusal is the refusing limit's {@code message}; a message in braces,
 * such as <code>{orders.too-many}</code>, is a code looked up in the
 * {@link MessageSource} for the current locale, and an empty one looks up
 * {@value RateLimitAspect#DEFAULT_MESSAGE_CODE}, falling back to the standard message.
 * Messages receive the limit's name, threshold, period (such as {@code 30s}) and the
 * seconds to wait as arguments {0} to {3}; a plain message with braces is formatted with
 * them too.
 */
final class Refusals {

	private final MessageSource messageSource;

	private volatile Set<String> capacityLimits = Set.of();

	Refusals(MessageSource messageSource) {
		this.messageSource = messageSource;
	}

	/** Name the limits whose refusals say the service is at capacity (503). */
	void setCapacityLimits(Set<String> names) {
		this.capacityLimits = Set.copyOf(names);
	}

	/**
	 * Return the exception that answers a refused call.
	 * @param operation the call's operation, whose limits carry their messages
	 * @param key the key the call counts under
	 * @param decision the refusal
	 * @return the exception
	 */
	RateLimitExceededException of(AnnotatedOperation operation, String key, Decision decision) {
		if (decision.policy() == FailurePolicy.FAIL_CLOSED) {
			return new RateLimitUnavailableException(unavailableMessage(RateLimitAspect.UNAVAILABLE_MESSAGE_CODE,
					decision, RateLimitUnavailableException.standardMessage(decision)), key, decision);
		}
		Set<String> capacity = this.capacityLimits;
		// an adaptive limit protects what this instance can serve, whoever calls
		if (decision.limit() != null && (decision.limit().algorithm() == Algorithm.ADAPTIVE
				|| !capacity.isEmpty() && capacity.contains(decision.limit().name()))) {
			return new RateLimitUnavailableException(unavailableMessage(RateLimitAspect.CAPACITY_MESSAGE_CODE, decision,
					"The service is at capacity under '" + decision.limit().name() + "', retry after "
							+ decision.retryAfterSeconds() + "s"),
					key, decision);
		}
		return new RateLimitExceededException(message(operation, decision), key, decision);
	}

	/**
	 * Return the message of a 503 refusal: the {@code MessageSource}'s for the code, with
	 * the limit's name and the seconds to wait, else the standard one.
	 */
	private String unavailableMessage(String code, Decision decision, String standard) {
		if (this.messageSource != null) {
			Object[] arguments = { decision.limit().name(), Long.toString(decision.retryAfterSeconds()) };
			String message = this.messageSource.getMessage(code, arguments, null, LocaleContextHolder.getLocale());
			if (message != null) {
				return message;
			}
		}
		return standard;
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
			String messageCode = code ? template.substring(1, template.length() - 1)
					: RateLimitAspect.DEFAULT_MESSAGE_CODE;
			String message = this.messageSource.getMessage(messageCode, arguments, null, locale);
			if (message != null) {
				return message;
			}
		}
		return RateLimitExceededException.standardMessage(decision);
	}

}
