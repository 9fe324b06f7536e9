package dev.limiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.limiter.call.InvalidRateLimitException;

/**
 * Explains a startup that failed on an {@link InvalidRateLimitException}: which method,
 * what is wrong and how to fix it.
 */
class InvalidRateLimitFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRateLimitException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitException cause) {
		String description = "The @RateLimit on " + cause.getMethod() + " is invalid: " + cause.getProblem() + ".";
		return new FailureAnalysis(description, cause.getFix(), cause);
	}

}
