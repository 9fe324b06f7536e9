package dev.limiter.aop;

import java.time.Duration;

import dev.limiter.FailurePolicy;

/**
 * The settings of a named limit from the configuration, any of which may be missing and
 * then comes from the annotation.
 *
 * @param threshold the most permits in any window, or {@code null}
 * @param period the window, or {@code null}
 * @param failurePolicy what the limit does when the store cannot answer, or {@code null}
 * @param localThreshold the per-instance threshold under {@link FailurePolicy#LOCAL}, or
 * {@code null}
 */
public record ConfiguredLimit(Long threshold, Duration period, FailurePolicy failurePolicy, Long localThreshold) {

	/**
	 * Create the numbers of a named limit, without failure settings.
	 * @param threshold the most permits in any window, or {@code null}
	 * @param period the window, or {@code null}
	 */
	public ConfiguredLimit(Long threshold, Duration period) {
		this(threshold, period, null, null);
	}

}
