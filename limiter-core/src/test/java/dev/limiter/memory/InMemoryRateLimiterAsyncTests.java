package dev.limiter.memory;

import java.time.Clock;
import java.util.Collections;
import java.util.List;

import dev.limiter.AsyncAsBlocking;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterContractTests;

/**
 * The contract through the in-memory engine's non-blocking path.
 */
class InMemoryRateLimiterAsyncTests extends RateLimiterContractTests {

	@Override
	protected RateLimiter limiter(Clock clock, boolean countRejected) {
		return AsyncAsBlocking.of(new InMemoryRateLimiter(clock, countRejected));
	}

	@Override
	protected List<RateLimiter> instances(int count) {
		return Collections.nCopies(count, AsyncAsBlocking.of(new InMemoryRateLimiter()));
	}

}
