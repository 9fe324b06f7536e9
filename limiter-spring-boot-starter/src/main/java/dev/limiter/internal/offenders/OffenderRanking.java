package dev.limiter.internal.offenders;

import java.util.List;

/**
 * The callers rejected most under a limit recently, as the {@code ratelimits} endpoint
 * lists them: this instance's, or every instance's together.
 */
@FunctionalInterface
public interface OffenderRanking {

	/**
	 * Return the callers rejected most under a limit recently, most first.
	 * @param limit the limit's name
	 * @param count how many at most
	 * @return the callers with their rejections
	 */
	List<Offender> top(String limit, int count);

	/**
	 * A caller and how many of its calls were rejected.
	 *
	 * @param key the key its calls counted under
	 * @param rejections its rejections: at least the true count, at most that plus the
	 * error the sketch reports for it
	 */
	record Offender(String key, long rejections) {

	}

}
