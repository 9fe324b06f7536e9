package dev.limiter.internal.client;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The quota an upstream announces in {@code RateLimit-Policy}: {@code "name";q=100;w=60}
 * (IETF draft -11) or {@code 100;w=60} (draft -10), the smallest rate when it lists
 * several. Anything that does not parse is ignored.
 *
 * @param quota the requests in a window
 * @param window the window
 */
public record UpstreamPolicy(long quota, Duration window) {

	private static final Pattern PARAMETER = Pattern.compile("(?:^|;)\\s*([qw])\\s*=\\s*(\\d{1,9})\\s*(?=;|$)");

	private static final Pattern BARE_QUOTA = Pattern.compile("^\\s*(\\d{1,9})\\s*(?=;|$)");

	/**
	 * Read a {@code RateLimit-Policy} header.
	 * @param header the header's value, or {@code null}
	 * @return the policy of the smallest rate, or {@code null}
	 */
	public static UpstreamPolicy of(String header) {
		if (header == null || header.length() > 1_000) {
			return null;
		}
		UpstreamPolicy smallest = null;
		for (String item : header.split(",", 16)) {
			Long quota = null;
			Long window = null;
			Matcher bare = BARE_QUOTA.matcher(item);
			if (bare.find()) {
				quota = Long.parseLong(bare.group(1));
			}
			Matcher parameters = PARAMETER.matcher(item);
			while (parameters.find()) {
				long value = Long.parseLong(parameters.group(2));
				if (parameters.group(1).equals("q")) {
					quota = value;
				}
				else {
					window = value;
				}
			}
			if (quota != null && quota > 0 && window != null && window > 0) {
				UpstreamPolicy policy = new UpstreamPolicy(quota, Duration.ofSeconds(window));
				smallest = (smallest == null || policy.isSmallerThan(smallest.quota, smallest.window)) ? policy
						: smallest;
			}
		}
		return smallest;
	}

	/**
	 * Return whether this policy allows fewer requests per unit of time than another
	 * quota.
	 * @param threshold the other quota's requests
	 * @param period the other quota's window
	 * @return whether this rate is the smaller
	 */
	public boolean isSmallerThan(long threshold, Duration period) {
		// q / w < threshold / period, in whole milliseconds, without dividing
		return (double) this.quota * period.toMillis() < (double) threshold * this.window.toMillis();
	}

}
