package dev.limiter.autoconfigure;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.annotation.RateLimit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that bad {@link RateLimit @RateLimit} annotations stop the application at startup
 * with a message from {@link InvalidRateLimitFailureAnalyzer}.
 */
class RateLimitStartupValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	@Test
	void missingThreshold() {
		assertThat(analyze(MissingThreshold.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).isEqualTo("The @RateLimit on " + MissingThreshold.class.getName()
					+ ".call() is invalid: threshold must be between 1 and 2147483647, was 0 (limit 'default').");
			assertThat(analysis.getAction()).startsWith("Set threshold to a value between 1 and 2147483647");
		});
	}

	@Test
	void zeroPeriod() {
		assertThat(analyze(ZeroPeriod.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains(ZeroPeriod.class.getName() + ".call(String)")
				.contains("period must be between 1ms and 36500 days, was PT0S");
			assertThat(analysis.getAction()).startsWith("Set period");
		});
	}

	@Test
	void unknownNameWithoutThreshold() {
		assertThat(analyze(UnknownName.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription())
				.contains("limit 'search' is not defined under limiter.limits and the annotation gives no threshold");
			assertThat(analysis.getAction()).contains("limiter.limits.search.threshold");
		});
	}

	@Test
	void nameDefinedInConfigurationCompletesTheAnnotation() {
		this.contextRunner.withUserConfiguration(UnknownName.class)
			.withPropertyValues("limiter.limits.search.threshold=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void keyThatDoesNotParse() {
		assertThat(analyze(BadSyntax.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains(BadSyntax.class.getName() + ".call(String)")
				.contains("key '#user +' is not a valid SpEL expression");
			assertThat(analysis.getAction()).contains("key = \"#user\"");
		});
	}

	@Test
	void keyWithUnknownParameter() {
		assertThat(analyze(UnknownParameter.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription())
				.contains("key '#usr' refers to #usr, which is not a parameter of the method (parameters: [user, id])");
			assertThat(analysis.getAction()).contains("compile with -parameters");
		});
	}

	@Test
	void limitsWithDifferentKeys() {
		assertThat(analyze(DifferentKeys.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription()).contains("give different keys ['', '#user']");
			assertThat(analysis.getAction()).contains("the same key");
		});
	}

	@Test
	void permitsAboveTheThreshold() {
		assertThat(analyze(TooManyPermits.class)).satisfies((analysis) -> {
			assertThat(analysis.getDescription())
				.contains("permits must be between 1 and the smallest threshold (2), was 3");
			assertThat(analysis.getAction()).contains("Lower permits");
		});
	}

	@Test
	void validAnnotationsStart() {
		this.contextRunner.withUserConfiguration(Valid.class).run((context) -> assertThat(context).hasNotFailed());
	}

	private FailureAnalysis analyze(Class<?> configuration) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.contextRunner.withUserConfiguration(configuration).run((context) -> {
			assertThat(context).hasFailed();
			analysis[0] = new InvalidRateLimitFailureAnalyzer().analyze(context.getStartupFailure());
		});
		assertThat(analysis[0]).isNotNull();
		return analysis[0];
	}

	@Configuration(proxyBeanMethods = false)
	static class MissingThreshold {

		@Bean
		MissingThreshold.Service service() {
			return new MissingThreshold.Service();
		}

		@RateLimit(period = 10)
		public void call() {
		}

		static class Service {

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ZeroPeriod {

		@RateLimit(threshold = 2, period = 0, unit = TimeUnit.MINUTES)
		public void call(String user) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownName {

		@RateLimit(name = "search")
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadSyntax {

		@RateLimit(threshold = 2, key = "#user +")
		public void call(String user) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownParameter {

		@RateLimit(threshold = 2, key = "#usr")
		public void call(String user, long id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@RateLimit(threshold = 100)
	static class DifferentKeys {

		@RateLimit(threshold = 2, key = "#user")
		public void call(String user) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TooManyPermits {

		@RateLimit(threshold = 2, permits = 3)
		public void call() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Valid {

		@RateLimit(threshold = 2, key = "#user.length() > 3 ? #user : #p0 + #request")
		@RateLimit(threshold = 20, period = 1, unit = TimeUnit.HOURS,
				key = "#user.length() > 3 ? #user : #p0 + #request")
		public void call(String user) {
		}

	}

}
