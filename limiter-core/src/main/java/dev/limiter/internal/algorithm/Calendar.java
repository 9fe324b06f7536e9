package dev.limiter.internal.algorithm;

import dev.limiter.Algorithm;
import dev.limiter.Limit;

/**
 * Calendar windows: one counter per limit with the start of its window; the script gets
 * the boundaries ({@link CalendarWindows}) instead of a unit, and the key names the
 * calendar and its zone.
 */
final class Calendar extends AlgorithmDescriptor {

	Calendar() {
		super(Algorithm.CALENDAR);
	}

	@Override
	public String keySuffix(Limit limit) {
		return (limit.calendar() != null) ? ":c" + limit.periodText() + "@" + limit.zone().getId() : ":c";
	}

	@Override
	public long unitMicros(Limit limit) {
		return 0;
	}

	@Override
	public String unitArgument(Limit limit, long nowMicros) {
		return CalendarWindows.argument(CalendarWindows.around(limit, nowMicros));
	}

	@Override
	public boolean unitDependsOnTime() {
		return true;
	}

	@Override
	public Window newWindow(Limit limit) {
		return new CalendarWindow(limit);
	}

}
