package dev.limiter.internal.call;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link CallClock} that waits as the system's does and records every wait, so that a
 * test asserts the wait Limiter chose rather than the wall-clock time that passed.
 */
public final class RecordingCallClock implements CallClock {

	private final List<Duration> waits = new CopyOnWriteArrayList<>();

	@Override
	public long nanoTime() {
		return CallClock.SYSTEM.nanoTime();
	}

	@Override
	public void sleep(Duration duration) throws InterruptedException {
		this.waits.add(duration);
		CallClock.SYSTEM.sleep(duration);
	}

	/**
	 * Return the waits so far, in order.
	 * @return the waits
	 */
	public List<Duration> waits() {
		return List.copyOf(this.waits);
	}

}
