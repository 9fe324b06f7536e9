package dev.limiter.internal.call;

import java.util.concurrent.CompletableFuture;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A call decided without blocking, for every reactive surface: a refusal known without
 * the store (a remembered rejection, a cost no limit holds) is answered on the
 * subscriber's thread, as a handler's own error would be; otherwise the store answers on
 * the limiter's timer or Redis's event loop, and what follows runs on Reactor's parallel
 * threads, never on the threads that read Redis's replies (an exchange continued there
 * holds up every other reply).
 * <p>
 * On Reactor Netty before 1.3.8 an answer known at once is written in a later task of the
 * event loop that asked (or from Reactor's parallel threads off an event loop): that
 * server stops reading a kept-alive connection when a request it held back (it came
 * before the previous exchange ended, as the request after an admitted call often does)
 * is answered inside its own read (reactor-netty#4361).
 */
public final class ReactiveDecisions {

	/** How a reactive surface waits under {@code maxWait}: a Reactor delay. */
	public static final CallPipeline.Delay DELAY = (duration) -> Mono.delay(duration).toFuture();

	private static final boolean STALLS_ON_ANSWERS_AT_ONCE = stallsOnAnswersAtOnce(reactorNettyVersion());

	private ReactiveDecisions() {
	}

	/**
	 * Decide a call.
	 * @param handle the call
	 * @return whether it may go on
	 */
	public static Mono<Boolean> decided(CallHandle handle) {
		return Mono.defer(() -> {
			CompletableFuture<Boolean> decided = handle.decideAsync(DELAY);
			if (decided.isDone() && !decided.isCompletedExceptionally() && !decided.join() && handle.answeredAtOnce()) {
				return answeredAtOnce(Mono.just(false));
			}
			return Mono.fromFuture(decided).publishOn(Schedulers.parallel());
		});
	}

	/**
	 * Return an answer known without the store as the server can take it: on the
	 * subscriber's thread, or in a later task of its event loop where the server would
	 * stall the connection on it.
	 * @param <T> what the answer gives
	 * @param answer the answer
	 * @return the answer, where it may run
	 */
	public static <T> Mono<T> answeredAtOnce(Mono<T> answer) {
		if (!STALLS_ON_ANSWERS_AT_ONCE) {
			return answer;
		}
		return Mono.defer(() -> {
			// a later task of the same event loop is enough: the server's read has
			// returned by then, and no other thread is woken for a refusal
			EventExecutor loop = ThreadExecutorMap.currentExecutor();
			if (loop == null) {
				return answer.subscribeOn(Schedulers.parallel());
			}
			return Mono.<Void>create((sink) -> loop.execute(sink::success)).then(answer);
		});
	}

	/**
	 * Return whether a Reactor Netty of a version stalls a kept-alive connection on an
	 * answer given inside its read: every version before 1.3.8, and one that does not say
	 * its version.
	 * @param version the version Reactor Netty's jar names, {@code ""} without Reactor
	 * Netty, {@code null} when the jar does not say
	 * @return whether answers known at once leave the thread that asked
	 */
	static boolean stallsOnAnswersAtOnce(String version) {
		if (version == null) {
			return true;
		}
		if (version.isEmpty()) {
			return false;
		}
		String[] parts = version.split("[.-]");
		try {
			int major = Integer.parseInt(parts[0]);
			int minor = (parts.length > 1) ? Integer.parseInt(parts[1]) : 0;
			int patch = (parts.length > 2) ? Integer.parseInt(parts[2]) : 0;
			return major < 1 || (major == 1 && (minor < 3 || (minor == 3 && patch < 8)));
		}
		catch (NumberFormatException ex) {
			return true;
		}
	}

	private static String reactorNettyVersion() {
		try {
			Class<?> server = Class.forName("reactor.netty.http.server.HttpServer", false,
					ReactiveDecisions.class.getClassLoader());
			return server.getPackage().getImplementationVersion();
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return "";
		}
	}

}
