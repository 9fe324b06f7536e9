package dev.limiter.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.limiter.Decision;

/**
 * The decisions of one call under its enforced limits and under the limits that only
 * watch it (shadow mode), which are asked only once the enforced limits admit the call.
 *
 * @param enforced the decision of the enforced limits
 * @param watched the decision of the watching limits, or {@code null} when the enforced
 * limits rejected the call
 */
public record WatchedDecision(Decision enforced, Decision watched) {

	/**
	 * Return the decisions of a call whose enforced limits were decided alone.
	 * @param enforced the decision of the enforced limits
	 * @param watched asks the watching limits, only when the call is admitted
	 * @return the decisions
	 */
	static WatchedDecision of(Decision enforced, Supplier<Decision> watched) {
		return new WatchedDecision(enforced, enforced.isAllowed() ? watched.get() : null);
	}

	/**
	 * Return the decisions of a call whose enforced limits are decided alone, without
	 * blocking.
	 * @param enforced the decision of the enforced limits, to come
	 * @param watched asks the watching limits, only when the call is admitted
	 * @return the decisions to come
	 */
	static CompletableFuture<WatchedDecision> ofAsync(CompletableFuture<Decision> enforced,
			Supplier<CompletableFuture<Decision>> watched) {
		return enforced.thenCompose((decision) -> decision.isAllowed()
				? watched.get().thenApply((shadow) -> new WatchedDecision(decision, shadow))
				: CompletableFuture.completedFuture(new WatchedDecision(decision, null)));
	}

}
