package dev.limiter.memory;

import java.time.Clock;
import java.util.Collections;
import java.util.List;

import dev.limiter.AlgorithmContractTests;
import dev.limiter.RateLimiter;

class InMemoryAlgorithmTests extends AlgorithmContractTests {

	@Override
	protected RateLimiter store(Clock clock, boolean countRejected) {
		return new InMemoryRateLimiter(clock, countRejected);
	}

	@Override
	protected List<RateLimiter> instances(int count) {
		return Collections.nCopies(count, new InMemoryRateLimiter());
	}

}
