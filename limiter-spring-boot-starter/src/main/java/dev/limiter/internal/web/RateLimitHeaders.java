package dev.limiter.internal.web;

import java.util.function.BiConsumer;
import java.util.function.Function;

import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.web.HeaderStyle;

/**
 * Writes the rate-limit headers of a {@link Decision} in a {@link HeaderStyle}.
 * <p>
 * The IETF fields follow draft-ietf-httpapi-ratelimit-headers-10, whose fields -11 keeps:
 * {@code RateLimit-Policy: "default";q=2;w=30} and {@code RateLimit: "default";r=0;t=17}.
 * On a rejection {@code t} is the seconds until the call would pass, the same number as
 * {@code Retry-After}; on an admission it is the seconds until the window is empty, like
 * {@code X-RateLimit-Reset}. Periods are rounded up to whole seconds.
 */
public final class RateLimitHeaders {

	/** The IETF policy field. */
	public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";

	/** The IETF field with the remaining quota. */
	public static final String RATE_LIMIT = "RateLimit";

	/** The legacy header with the threshold. */
	public static final String X_RATE_LIMIT_LIMIT = "X-RateLimit-Limit";

	/** The legacy header with the remaining permits. */
	public static final String X_RATE_LIMIT_REMAINING = "X-RateLimit-Remaining";

	/** The legacy header with the seconds until the window is empty. */
	public static final String X_RATE_LIMIT_RESET = "X-RateLimit-Reset";

	/** The standard header with the seconds to wait. */
	public static final String RETRY_AFTER = "Retry-After";

	/** The request attribute naming the scope whose quota the response reports. */
	private static final String REPORTED_SCOPE = RateLimitHeaders.class.getName() + ".scope";

	private final HeaderStyle style;

	/**
	 * Return whether an admitted call of a scope writes the quota of the response it runs
	 * in: the first limited call of a request does (and again when it is charged), a call
	 * limited inside it, under another scope, does not.
	 * @param scope the call's scope
	 * @param attributes reads an attribute of the request
	 * @param remember sets an attribute of the request
	 * @return whether the call's quota is the response's
	 */
	public static boolean reports(String scope, Function<String, Object> attributes,
			BiConsumer<String, Object> remember) {
		Object reported = attributes.apply(REPORTED_SCOPE);
		if (reported == null) {
			remember.accept(REPORTED_SCOPE, scope);
			return true;
		}
		return reported.equals(scope);
	}

	/**
	 * Create a writer.
	 * @param style the headers to write
	 */
	public RateLimitHeaders(HeaderStyle style) {
		if (style == null) {
			throw new IllegalArgumentException("style must not be null");
		}
		this.style = style;
	}

	public HeaderStyle getStyle() {
		return this.style;
	}

	/**
	 * Write the headers of a decision: {@code Retry-After} for a rejection, then the
	 * headers of the style.
	 * @param decision the decision
	 * @param headers sets a header, replacing any earlier value
	 */
	public void write(Decision decision, BiConsumer<String, String> headers) {
		Limit limit = decision.limit();
		if (!decision.isAllowed()) {
			headers.accept(RETRY_AFTER, Long.toString(decision.retryAfterSeconds()));
		}
		// Calls in flight have no window and no reset: a slot frees whenever a call ends.
		// Their headers say the slots and what is free, and a refusal's t is its hint.
		boolean window = !AlgorithmDescriptor.of(limit.algorithm()).countsCallsInFlight();
		if (this.style == HeaderStyle.BOTH || this.style == HeaderStyle.IETF) {
			String name = quote(limit.name());
			long reset = decision.isAllowed() ? decision.resetAfterSeconds() : decision.retryAfterSeconds();
			headers.accept(RATE_LIMIT_POLICY,
					name + ";q=" + limit.threshold() + (window ? ";w=" + seconds(limit) : ""));
			headers.accept(RATE_LIMIT,
					name + ";r=" + decision.remaining() + ((window || !decision.isAllowed()) ? ";t=" + reset : ""));
		}
		if (this.style == HeaderStyle.BOTH || this.style == HeaderStyle.LEGACY) {
			headers.accept(X_RATE_LIMIT_LIMIT, Long.toString(limit.threshold()));
			headers.accept(X_RATE_LIMIT_REMAINING, Long.toString(decision.remaining()));
			if (window) {
				headers.accept(X_RATE_LIMIT_RESET, Long.toString(decision.resetAfterSeconds()));
			}
		}
	}

	/**
	 * Write the headers of an admitted call, unless there are none to write: a rejection
	 * gets its headers with its error response, and a call admitted without the store
	 * (fail-open) has no known quota, so headers would lie about it.
	 * @param decision the decision
	 * @param headers receives each header's name and value
	 */
	public void writeAdmitted(Decision decision, BiConsumer<String, String> headers) {
		if (decision.isAllowed() && this.style != HeaderStyle.NONE
				&& !(decision.isDegraded() && decision.remaining() < 0)) {
			write(decision, headers);
		}
	}

	private static long seconds(Limit limit) {
		long millis = limit.period().toMillis();
		return (millis + 999) / 1000;
	}

	private static String quote(String name) {
		StringBuilder quoted = new StringBuilder(name.length() + 2).append('"');
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			// A structured-field string holds printable ASCII only, with '"' and '\'
			// escaped.
			if (c == '"' || c == '\\') {
				quoted.append('\\').append(c);
			}
			else if (c >= 0x20 && c < 0x7f) {
				quoted.append(c);
			}
			else {
				quoted.append('?');
			}
		}
		return quoted.append('"').toString();
	}

}
