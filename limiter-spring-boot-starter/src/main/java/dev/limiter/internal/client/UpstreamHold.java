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
 * GitHub sends it, in epoch seconds. Anything that does not parse is ignored: an
 * upstream's garbage never fails the call.
 *
 * @param duration how long to wait
 * @param source the header that said so
 */
public record UpstreamHold(Duration duration, String source) {

	// Reset values above this are epoch seconds (2001 onwards), below it a delay.
	private static final long EPOCH_SECONDS = 1_000_000_000L;

	private static final Pattern DRAFT_11_ITEM = Pattern.compile("(?:^|;)\\s*([rt])\\s*=\\s*(\\d{1,12})\\s*(?=;|$)");

	/**
	 * Read a response.
	 * @param status the response's status
	 * @param headers the response's headers by name
	 * @param nowMillis the time, in milliseconds since the epoch
	 * @return the hold, or {@code null} when the response asks for none
	 */
	public static UpstreamHold of(int status, UnaryOperator<String> headers, long nowMillis) {
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
		return null;
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
