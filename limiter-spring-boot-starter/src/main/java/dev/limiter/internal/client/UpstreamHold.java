package dev.limiter.internal.client;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an upstream's response says of its own quota: how long its client must wait. Read
 * from a 429 or 503's {@code Retry-After} (seconds or an HTTP date), the
 * {@code RateLimit} header of the IETF draft -11 ({@code r=0;t=<seconds>}), the draft -10
 * pair {@code RateLimit-Remaining: 0} and {@code RateLimit-Reset}, and the common
 * {@code X-RateLimit-Remaining: 0} with {@code X-RateLimit-Reset} in seconds or, as
 * GitHub sends it, in epoch seconds, and the pairs that model providers such as OpenAI
 * send, {@code X-RateLimit-Remaining-Requests} / {@code -Tokens} with
 * {@code X-RateLimit-Reset-Requests} / {@code -Tokens} in Go's durations ({@code 6m0s},
 * {@code 120ms}): a pair with nothing remaining holds until its reset, and a 429 or 503
 * without {@code Retry-After} holds until the later reset. Anything that does not parse
 * is ignored: an upstream's garbage never fails the call.
 *
 * @param duration how long to wait
 * @param source the header that said so
 */
public record UpstreamHold(Duration duration, String source) {

	// Reset values above this are epoch seconds (2001 onwards), below it a delay.
	private static final long EPOCH_SECONDS = 1_000_000_000L;

	private static final Pattern GO_DURATION_PART = Pattern.compile("(\\d{1,9}(?:\\.\\d{1,9})?)(h|ms|m|s)");

	private static final String[] PAIRS = { "Requests", "Tokens" };

	private static final Pattern DRAFT_11_ITEM = Pattern.compile("(?:^|;)\\s*([rt])\\s*=\\s*(\\d{1,12})\\s*(?=;|$)");

	/**
	 * Read a response.
	 * @param status the response's status
	 * @param headers the response's headers by name
	 * @param nowMillis the time, in milliseconds since the epoch
	 * @return the hold, or {@code null} when the response asks for none
	 */
	public static UpstreamHold of(int status, UnaryOperator<String> headers, long nowMillis) {
		return of(status, headers, nowMillis, 1);
	}

	/**
	 * Read a response to a call that reserved tokens: fewer tokens left than it reserved
	 * hold as none left do, since the next call like it would be refused.
	 * @param status the response's status
	 * @param headers the response's headers by name
	 * @param nowMillis the time, in milliseconds since the epoch
	 * @param tokens the tokens the call reserved, at least 1
	 * @return the hold, or {@code null} when the response asks for none
	 */
	public static UpstreamHold of(int status, UnaryOperator<String> headers, long nowMillis, long tokens) {
		if (status == 429 || status == 503) {
			Duration retryAfter = retryAfter(headers.apply("Retry-After"), nowMillis);
			if (retryAfter != null) {
				return new UpstreamHold(retryAfter, status + " with Retry-After");
			}
		}
		Duration draft11 = draft11(headers.apply("RateLimit"));
		if (draft11 != null) {
			return new UpstreamHold(draft11, "RateLimit r=0");
		}
		if (isZero(headers.apply("RateLimit-Remaining"))) {
			Duration reset = seconds(headers.apply("RateLimit-Reset"), nowMillis);
			if (reset != null) {
				return new UpstreamHold(reset, "RateLimit-Remaining: 0");
			}
		}
		if (isZero(headers.apply("X-RateLimit-Remaining"))) {
			Duration reset = seconds(headers.apply("X-RateLimit-Reset"), nowMillis);
			if (reset != null) {
				return new UpstreamHold(reset, "X-RateLimit-Remaining: 0");
			}
		}
		return pairs(status, headers, tokens);
	}

	private static UpstreamHold pairs(int status, UnaryOperator<String> headers, long tokens) {
		UpstreamHold longest = null;
		for (String pair : PAIRS) {
			long left = count(headers.apply("X-RateLimit-Remaining-" + pair));
			boolean exhausted = left == 0 || (left > 0 && pair.equals("Tokens") && left < tokens);
			if (exhausted || status == 429 || status == 503) {
				Duration reset = goDuration(headers.apply("X-RateLimit-Reset-" + pair));
				if (reset != null && (longest == null || reset.compareTo(longest.duration()) > 0)) {
					longest = new UpstreamHold(reset, (exhausted ? "X-RateLimit-Remaining-" + pair + " too low"
							: status + " with X-RateLimit-Reset-" + pair));
				}
			}
		}
		return longest;
	}

	/**
	 * Read a duration as Go writes it ({@code 1h2m3.5s}, {@code 6m0s}, {@code 120ms}).
	 * @param value the text, or {@code null}
	 * @return the duration when positive, otherwise {@code null}
	 */
	static Duration goDuration(String value) {
		if (value == null) {
			return null;
		}
		String trimmed = value.trim();
		if (trimmed.isEmpty() || trimmed.length() > 40) {
			return null;
		}
		Matcher matcher = GO_DURATION_PART.matcher(trimmed);
		double millis = 0;
		int end = 0;
		while (matcher.find() && matcher.start() == end) {
			double number = Double.parseDouble(matcher.group(1));
			millis += switch (matcher.group(2)) {
				case "h" -> number * 3_600_000;
				case "m" -> number * 60_000;
				case "s" -> number * 1_000;
				default -> number;
			};
			end = matcher.end();
		}
		if (end != trimmed.length()) {
			return null;
		}
		return positive((long) Math.ceil(millis));
	}

	private static Duration retryAfter(String value, long nowMillis) {
		if (value == null) {
			return null;
		}
		Duration seconds = delay(value);
		if (seconds != null) {
			return seconds;
		}
		try {
			long until = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME)
				.toInstant()
				.toEpochMilli();
			return positive(until - nowMillis);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private static Duration draft11(String value) {
		if (value == null) {
			return null;
		}
		Duration longest = null;
		// items are separated by commas; each is "name";r=<n>;t=<s>
		for (String item : value.split(",", 16)) {
			Long remaining = null;
			Long wait = null;
			Matcher matcher = DRAFT_11_ITEM.matcher(item);
			while (matcher.find()) {
				long number = Long.parseLong(matcher.group(2));
				if (matcher.group(1).equals("r")) {
					remaining = number;
				}
				else {
					wait = number;
				}
			}
			if (remaining != null && remaining == 0 && wait != null && wait > 0) {
				Duration duration = Duration.ofSeconds(wait);
				longest = (longest == null || duration.compareTo(longest) > 0) ? duration : longest;
			}
		}
		return longest;
	}

	private static boolean isZero(String value) {
		return value != null && value.trim().equals("0");
	}

	private static Duration seconds(String value, long nowMillis) {
		Duration delay = delay(value);
		if (delay == null || delay.getSeconds() < EPOCH_SECONDS) {
			return delay;
		}
		return positive(delay.getSeconds() * 1_000 - nowMillis);
	}

	/** A count of 12 digits at most, else -1. */
	private static long count(String value) {
		String trimmed = (value != null) ? value.trim() : "";
		if (trimmed.isEmpty() || trimmed.length() > 12 || !trimmed.chars().allMatch(Character::isDigit)) {
			return -1;
		}
		return Long.parseLong(trimmed);
	}

	private static Duration delay(String value) {
		if (value == null) {
			return null;
		}
		String trimmed = value.trim();
		if (trimmed.isEmpty() || trimmed.length() > 12 || !trimmed.chars().allMatch(Character::isDigit)) {
			return null;
		}
		long seconds = Long.parseLong(trimmed);
		return (seconds > 0) ? Duration.ofSeconds(seconds) : null;
	}

	private static Duration positive(long millis) {
		return (millis > 0) ? Duration.ofMillis(millis) : null;
	}

}
