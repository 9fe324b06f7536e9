package dev.limiter.sample;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample on virtual threads ({@code spring.threads.virtual.enabled=true}):
 * every end-to-end test of the sample, inherited, stays exact, and a call that waits its
 * turn ({@code maxWait}) never pins its carrier thread: a JFR recording of every
 * {@code jdk.VirtualThreadPinned} event, however short, holds none that waited with a
 * Limiter frame on its stack.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsEndToEndIntegrationTests extends SampleAppEndToEndIntegrationTests {

	private Path recordings;

	// The same two instances, on virtual threads and recorded.
	@Override
	SampleInstances start(RedisServer redis) throws Exception {
		this.recordings = Files.createTempDirectory("limiter-jfr");
		Path settings = Path.of(getClass().getResource("/virtual-threads.jfc").toURI());
		return SampleInstances.start(2, redis, List.of("-XX:StartFlightRecording=name=limiter,settings=" + settings),
				"--spring.threads.virtual.enabled=true", "--limiter.limits.orders-burst.period=5s");
	}

	@Test
	void callsThatWaitTheirTurnNeverPinACarrierThread() throws Exception {
		// 2 a second over both instances: the third waits (once, see the guide) for the
		// first to leave the window.
		long start = System.nanoTime();
		List<HttpResponse<String>> responses = this.instances.fire("/queue", null, 3, 3);
		long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(responses).extracting(HttpResponse::statusCode).as("the third waited its turn").containsOnly(200);
		assertThat(elapsed).as("milliseconds, the wait included").isGreaterThanOrEqualTo(500);
		for (int index = 0; index < 2; index++) {
			List<RecordedEvent> events = record(index);
			assertThat(events).filteredOn((event) -> event.getEventType().getName().equals("jdk.VirtualThreadStart"))
				.as("requests ran on virtual threads")
				.isNotEmpty();
			List<RecordedEvent> pinned = events.stream()
				.filter((event) -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
				.toList();
			System.out.printf(
					"virtual threads, instance %d: %d pinned events (class loading and first-use initialization), "
							+ "%d of them while waiting in Limiter; first frames: %s%n",
					index, pinned.size(), pinned.stream().filter(this::waitsInLimiter).count(),
					pinned.stream().map(VirtualThreadsEndToEndIntegrationTests::where).distinct().limit(5).toList());
			assertThat(pinned).as("pinned while waiting in Limiter").noneMatch(this::waitsInLimiter);
		}
	}

	private List<RecordedEvent> record(int index) throws Exception {
		Path recording = this.recordings.resolve("instance-" + index + ".jfr");
		Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
				Long.toString(this.instances.pid(index)), "JFR.dump", "name=limiter", "filename=" + recording)
			.redirectErrorStream(true)
			.start();
		String output = new String(dump.getInputStream().readAllBytes());
		assertThat(dump.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(dump.exitValue()).as(output).isZero();
		return RecordingFile.readAllEvents(recording);
	}

	private static String where(RecordedEvent event) {
		return (event.getStackTrace() != null) ? event.getStackTrace()
			.getFrames()
			.stream()
			.limit(3)
			.map((frame) -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName())
			.toList()
			.toString() : "no stack";
	}

	/**
	 * Whether a virtual thread was pinned while it waited (slept, parked) with a Limiter
	 * frame on its stack: a wait for a turn that held its carrier. Pins while a class
	 * loads or initializes through a native frame happen once, on first use, whoever
	 * calls.
	 */
	private boolean waitsInLimiter(RecordedEvent event) {
		if (event.getStackTrace() == null) {
			return false;
		}
		List<String> frames = event.getStackTrace()
			.getFrames()
			.stream()
			.map(RecordedFrame::getMethod)
			.map((method) -> method.getType().getName() + "." + method.getName())
			.toList();
		boolean waits = frames.stream()
			.anyMatch((frame) -> frame.startsWith("java.lang.Thread.sleep") || frame.startsWith("java.lang.Object.wait")
					|| frame.startsWith("java.lang.VirtualThread.park")
					|| frame.startsWith("java.util.concurrent.locks.LockSupport.park"));
		return waits && frames.stream().anyMatch((frame) -> frame.startsWith("dev.limiter."));
	}

}
