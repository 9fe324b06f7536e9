package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;

import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimitResolvers;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.call.InvalidRateLimitException;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.internal.limits.LimitResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RateLimitAnnotationParserTests {

	private final RateLimitAnnotationParser parser = new RateLimitAnnotationParser(
			resolver(Map.of("search", named(3, "10s"))), null);

	@Test
	void readsTheLimitsOfAMethodAndItsClassWithTheMethodAsScope() throws Exception {
		AnnotatedOperation operation = this.parser.parse(Limited.class.getMethod("burstAndHourly"));
		assertThat(operation.getLimits()).containsExactly(Limit.of(100, Duration.ofDays(1)),
				Limit.of(2, Duration.ofSeconds(1)), Limit.of("hourly", 20, Duration.ofHours(1)));
		assertThat(operation.getScope()).isEqualTo("m:" + Limited.class.getName() + ".burstAndHourly");
		assertThat(operation.getPermits()).isEqualTo(1);
		assertThat(operation.getKeyExpression()).isNull();
	}

	@Test
	void aNamedLimitInTheConfigurationWinsAndNamesTheScope() throws Exception {
		AnnotatedOperation operation = this.parser.parse(Named.class.getMethod("search"));
		assertThat(operation.getLimits()).containsExactly(
				Limit.of("search", 3, Duration.ofSeconds(10)).withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		assertThat(operation.getScope()).isEqualTo("n:search");
	}

	@Test
	void aNameTheConfigurationDoesNotDefineKeepsTheAnnotationsNumbers() throws Exception {
		AnnotatedOperation operation = this.parser.parse(Named.class.getMethod("undefined"));
		assertThat(operation.getLimits()).containsExactly(Limit.of("elsewhere", 5, Duration.ofMinutes(1)));
	}

	@Test
	void aSpelKeyIsParsedOnce() throws Exception {
		AnnotatedOperation operation = this.parser.parse(Named.class.getMethod("perTenant", String.class));
		assertThat(operation.getKeyExpression().source()).isEqualTo("#tenant");
		assertThat(operation.getKeySource()).isEqualTo("#tenant");
	}

	@Test
	void aSpelKeyReadsParametersAndBeansOfTheParsersBeanFactory() throws Exception {
		StaticListableBeanFactory beanFactory = new StaticListableBeanFactory();
		beanFactory.addBean("region", "eu");
		RateLimitAnnotationParser parser = new RateLimitAnnotationParser(resolver(Map.of()), beanFactory);
		AnnotatedOperation operation = parser.parse(Named.class.getMethod("perTenantAndRegion", String.class));
		RateLimitInvocation invocation = new RateLimitInvocation(operation, Named.class, new Object[] { "acme" }, null);
		assertThat(operation.getKeyExpression().evaluate(invocation))
			.isEqualTo("m:" + Named.class.getName() + ".perTenantAndRegion:acme@eu");
	}

	@Test
	void differentKeysOnOneMethodAreRejectedNamingTheMethodAndTheFix() throws Exception {
		assertThatExceptionOfType(InvalidRateLimitException.class)
			.isThrownBy(() -> this.parser.parse(Broken.class.getMethod("twoKeys", String.class)))
			.satisfies((ex) -> {
				assertThat(ex.getMethod()).isEqualTo(Broken.class.getName() + ".twoKeys(String)");
				assertThat(ex.getProblem()).contains("give different keys ['#a', '#b']");
				assertThat(ex.getFix()).contains("the same key");
			});
	}

	@Test
	void aKeyNamingAMissingParameterIsRejected() throws Exception {
		assertThatExceptionOfType(InvalidRateLimitException.class)
			.isThrownBy(() -> this.parser.parse(Broken.class.getMethod("missingParameter", String.class)))
			.satisfies((ex) -> assertThat(ex.getProblem())
				.isEqualTo("key '#user' refers to #user, which is not a parameter of the method (parameters: [name])"));
	}

	@Test
	void aKeyOfAClassCompiledWithoutParametersNamesTheCause(@TempDir Path classes) throws Exception {
		Path source = classes.resolve("Chat.java");
		Files.writeString(source, """
				public class Chat {
					@dev.limiter.annotation.RateLimit(threshold = 1, period = 1, key = "#user")
					public String chat(String user, int words) { return user; }
				}
				""");
		String annotations = java.nio.file.Path
			.of(RateLimit.class.getProtectionDomain().getCodeSource().getLocation().toURI())
			.toString();
		// javac as a build without Spring Boot's plugins runs it: no -parameters
		int exit = ToolProvider.getSystemJavaCompiler()
			.run(null, null, null, "-cp", annotations, "-d", classes.toString(), source.toString());
		assertThat(exit).isZero();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
				getClass().getClassLoader())) {
			Method chat = loader.loadClass("Chat").getMethod("chat", String.class, int.class);
			assertThatExceptionOfType(InvalidRateLimitException.class).isThrownBy(() -> this.parser.parse(chat))
				.satisfies((ex) -> {
					assertThat(ex.getProblem()).isEqualTo("key '#user' refers to #user, but the method's parameter "
							+ "names are not known: its class was compiled without -parameters");
					assertThat(ex.getFix()).contains("Compile with -parameters").contains("#p0");
				});
		}
	}

	@Test
	void aMethodWithoutAnnotationsHasNoOperation() throws Exception {
		assertThat(this.parser.parse(Object.class.getMethod("toString"))).isNull();
	}

	private static LimitResolver resolver(Map<String, LimiterProperties.NamedLimit> named) {
		LimiterProperties properties = new LimiterProperties();
		properties.getLimits().putAll(named);
		return LimitResolvers.of(properties);
	}

	private static LimiterProperties.NamedLimit named(long threshold, String period) {
		LimiterProperties.NamedLimit limit = new LimiterProperties.NamedLimit();
		limit.setThreshold(threshold);
		limit.setPeriod(DurationStyle.detectAndParse(period));
		limit.setFailurePolicy(FailurePolicy.FAIL_CLOSED);
		return limit;
	}

	@RateLimit(threshold = 100, period = 1, unit = TimeUnit.DAYS)
	static class Limited {

		@RateLimit(threshold = 2, period = 1)
		@RateLimit(name = "hourly", threshold = 20, period = 1, unit = TimeUnit.HOURS)
		public void burstAndHourly() {
		}

	}

	static class Named {

		@RateLimit(name = "search", threshold = 100)
		public void search() {
		}

		@RateLimit(name = "elsewhere", threshold = 5)
		public void undefined() {
		}

		@RateLimit(threshold = 5, key = "#tenant")
		public void perTenant(String tenant) {
		}

		@RateLimit(threshold = 5, key = "#tenant + '@' + @region")
		public void perTenantAndRegion(String tenant) {
		}

	}

	static class Broken {

		@RateLimit(threshold = 5, key = "#a")
		@RateLimit(threshold = 9, key = "#b")
		public void twoKeys(String a) {
		}

		@RateLimit(threshold = 5, key = "#user")
		public void missingParameter(String name) {
		}

	}

}
