package dev.limiter.internal.call;

import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A call decided without blocking, for every reactive surface: a refusal known without
 * the store (a remembered rejection, a cost no limit holds) is answered on the
 * subscriber's thread, as a handler's own error would be; otherwise the store answers on
 * the limiter's timer or Redis's event loop, and what follows runs on Reactor's parallel
 * threads, never on the threads that read Redis's replies (an exchange continued there
 * holds up every other reply).
 */
public final class ReactiveDecisions {

	/** How a reactive surface waits under {@code maxWait}: a Reactor delay. */
	public static final CallPipeline.Delay DELAY = (duration) -> Mono.delay(duration).toFuture();

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
				return Mono.just(false);
			}
			return Mono.fromFuture(decided).publishOn(Schedulers.parallel());
		});
	}

}
