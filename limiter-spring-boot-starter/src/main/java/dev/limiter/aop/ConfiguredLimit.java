package dev.limiter.aop;

import java.time.Duration;

/**
 * The numbers of a named limit from the configuration, either of which may be missing and
 * then comes from the annotation.
 *
 * @param threshold the most permits in any window, or {@code null}
 * @param period the window, or {@code null}
 */
public record ConfiguredLimit(Long threshold, Duration period) {

}
