package dev.limiter.testkit;

import java.time.Instant;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.limiter.RateLimiter;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;

/**
 * Auto-configuration of {@link LimiterTest @LimiterTest}: the application's
 * {@link RateLimiter} is the in-memory engine on the {@link TestLimiter} clock. It runs
 * before {@link LimiterAutoConfiguration}, whose stores back off from an existing
 * {@link RateLimiter}, so Redis is never touched.
 */
@AutoConfiguration(before = LimiterAutoConfiguration.class)
public final class LimiterTestAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TestLimiter testLimiter(Environment environment) {
		boolean countRejected = environment.getProperty("limiter.count-rejected", Boolean.class, false);
		// Whole seconds, so that the windows of a test line up with the numbers it reads.
		return new TestLimiter(Instant.ofEpochSecond(Instant.now().getEpochSecond()), countRejected);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimiter rateLimiter(TestLimiter testLimiter) {
		return testLimiter.rateLimiter();
	}

}
