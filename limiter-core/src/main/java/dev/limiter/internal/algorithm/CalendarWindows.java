package dev.limiter.internal.algorithm;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.limiter.Limit;

/**
 * The boundaries of a {@link dev.limiter.Algorithm#CALENDAR} limit's windows, where the
 * zone rules are: Lua in Redis has none, so the script gets the boundaries around the
 * application's clock and picks the window by the server's. Times are microseconds since
 * the epoch.
 */
final class CalendarWindows {

	// The latest boundaries of each calendar and zone: most calls fall in the window of
	// the call before them, and drawing it anew takes a few java.time objects.
	private static final Map<String, long[]> LATEST = new ConcurrentHashMap<>();

	private CalendarWindows() {
	}

	/**
	 * Return the four boundaries of the window holding {@code now}, the one before it and
	 * the one after it: {@code {previous start, start, end, next end}}.
	 * @param limit a calendar limit
	 * @param now the time, in microseconds since the epoch
	 * @return the boundaries, ascending
	 */
	static long[] around(Limit limit, long now) {
		if (limit.calendar() == null) {
			long period = limit.periodMicros();
			long start = Math.floorDiv(now, period) * period;
			return new long[] { start - period, start, start + period, start + 2 * period };
		}
		String calendar = limit.calendar().name() + '@' + limit.zone().getId();
		long[] latest = LATEST.get(calendar);
		if (latest != null && latest[1] <= now && now < latest[2]) {
			return latest;
		}
		long[] drawn = draw(limit.calendar(), limit.zone(), now);
		LATEST.put(calendar, drawn);
		return drawn;
	}

	/**
	 * Return the boundaries as the script reads them: {@code previous:start:end:next}.
	 * @param boundaries the boundaries from {@link #around}
	 * @return the argument
	 */
	static String argument(long[] boundaries) {
		return boundaries[0] + ":" + boundaries[1] + ":" + boundaries[2] + ":" + boundaries[3];
	}

	private static long[] draw(ChronoUnit calendar, ZoneId zone, long now) {
		ZonedDateTime time = Instant.EPOCH.plus(now, ChronoUnit.MICROS).atZone(zone);
		ZonedDateTime start = start(calendar, time);
		ZonedDateTime end = next(calendar, start);
		ZonedDateTime previous = start(calendar, start.minusNanos(1_000));
		return new long[] { micros(previous), micros(start), micros(end), micros(next(calendar, end)) };
	}

	private static ZonedDateTime start(ChronoUnit calendar, ZonedDateTime time) {
		return switch (calendar) {
			case MINUTES, HOURS -> time.truncatedTo(calendar);
			// the start of the day, wherever a zone's midnight falls into a gap
			case DAYS -> time.toLocalDate().atStartOfDay(time.getZone());
			case WEEKS -> time.toLocalDate()
				.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY))
				.atStartOfDay(time.getZone());
			case MONTHS -> time.toLocalDate().withDayOfMonth(1).atStartOfDay(time.getZone());
			default -> throw new IllegalArgumentException("Not a calendar: " + calendar);
		};
	}

	private static ZonedDateTime next(ChronoUnit calendar, ZonedDateTime start) {
		ZonedDateTime next = switch (calendar) {
			// on the time line: a local hour that a change of offset repeats is two
			// windows
			case MINUTES, HOURS -> start(calendar, start.plus(1, calendar));
			default -> start(calendar, start.toLocalDate().plus(1, calendar).atStartOfDay(start.getZone()));
		};
		// a zone whose offset moves by less than an hour can truncate back to the start
		return next.isAfter(start) ? next : start.plus(1, calendar);
	}

	private static long micros(ZonedDateTime time) {
		Instant instant = time.toInstant();
		return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
	}

}
