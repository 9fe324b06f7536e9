package dev.limiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed on a {@link LimiterSetupException}: what is wrong and
 * how to fix it.
 */
class LimiterSetupFailureAnalyzer extends AbstractFailureAnalyzer<LimiterSetupException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, LimiterSetupException cause) {
		return new FailureAnalysis(cause.getMessage(), cause.getFix(), cause);
	}

}
