package dev.limiter.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.limiter.RateLimiter;
import dev.limiter.internal.store.LimiterRedisConnection;
import dev.limiter.memory.InMemoryRateLimiter;
import dev.limiter.resilience.ResilientRateLimiter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code limiter.store}: which store each value gives, and the setups that must stop the
 * start rather than count in memory while the application means Redis. Port 1 refuses
 * connections, so these tests need no Redis.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimiterStoreTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class));

	@Test
	void autoWithAConnectionFactoryUsesRedis() {
		this.contextRunner.withBean(LettuceConnectionFactory.class, LimiterStoreTests::unreachable)
			.run((context) -> assertThat(context).getBean(RateLimiter.class).isInstanceOf(ResilientRateLimiter.class));
	}

	@Test
	void autoWithoutRedisCountsInMemoryAndSaysItIsPerInstance(CapturedOutput output) {
		this.contextRunner
			.run((context) -> assertThat(context).getBean(RateLimiter.class).isInstanceOf(InMemoryRateLimiter.class));
		assertThat(output).contains("Limiter stores rate limits in memory, for this instance only (the application "
				+ "has no RedisConnectionFactory bean): with several instances, each admits the whole limit");
	}

	@Test
	void autoWithTwoConnectionFactoriesAndNonePrimaryStopsTheStart() {
		this.contextRunner.withBean("one", LettuceConnectionFactory.class, LimiterStoreTests::unreachable)
			.withBean("two", LettuceConnectionFactory.class, LimiterStoreTests::unreachable)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).isEqualTo("Limiter would count rate limits in memory, each "
						+ "instance on its own, although the application has 2 RedisConnectionFactory beans and none "
						+ "is primary.");
				assertThat(analysis.getAction()).contains("@Primary").contains("limiter.store=memory");
			});
	}

	@Test
	void autoWithRedisConfiguredButNoConnectionFactoryStopsTheStart() {
		this.contextRunner.withPropertyValues("spring.data.redis.host=redis.internal").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).isEqualTo("Limiter would count rate limits in memory, each "
					+ "instance on its own, although spring.data.redis.host is set: the application has no "
					+ "RedisConnectionFactory bean.");
			assertThat(analysis.getAction()).contains("spring-boot-starter-data-redis")
				.contains("limiter.store=memory");
		});
	}

	/**
	 * The guide's "no Redis at all" setup: its exclusion names the dependency through
	 * which the starter brings Redis, and with Redis's classes gone and the guide's
	 * {@code limiter.store: memory} the application starts and counts in memory.
	 */
	@Test
	void theGuidesExclusionOfRedisIsTheStartersOwnDependencyAndStartsInMemory() throws Exception {
		java.nio.file.Path guide = java.nio.file.Path.of("..", "docs", "guide.md");
		String heading = "## Where limits are counted: `limiter.store`";
		String xml = dev.limiter.test.DocBlocks.block(guide, heading, "xml");
		String excluded = xml.substring(xml.indexOf("<exclusion>"), xml.indexOf("</exclusion>"));
		String pom = java.nio.file.Files.readString(java.nio.file.Path.of("pom.xml"));
		String redis = "<groupId>org.springframework.boot</groupId>\n\t\t\t<artifactId>"
				+ excluded.substring(excluded.indexOf("<artifactId>") + 12, excluded.indexOf("</artifactId>"))
				+ "</artifactId>";
		assertThat(excluded).contains("<groupId>org.springframework.boot</groupId>");
		assertThat(pom).as("the starter's dependency that the guide excludes").contains(redis);
		String yaml = dev.limiter.test.DocBlocks.block(guide, heading, "yaml");
		assertThat(yaml.replaceAll("\\s+", " ").strip()).isEqualTo("limiter: store: memory");
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis", "io.lettuce"))
			.withPropertyValues("limiter.store=memory")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).getBean(RateLimiter.class).isInstanceOf(InMemoryRateLimiter.class);
			});
	}

	@Test
	void autoWithRedisConfiguredButExcludedFromTheClasspathStopsTheStart() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.withPropertyValues("spring.data.redis.port=6380")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(analyze(context.getStartupFailure()).getDescription())
					.contains("although spring.data.redis.port is set: spring-data-redis is not on the classpath");
			});
	}

	@Test
	void redisWithoutAConnectionFactoryStopsTheStartNamingTheFix() {
		this.contextRunner.withPropertyValues("limiter.store=redis").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription())
				.isEqualTo("limiter.store is redis, but the application has no RedisConnectionFactory bean.");
			assertThat(analysis.getAction()).contains("spring.data.redis.host");
		});
	}

	@Test
	void redisWithAConnectionFactoryUsesRedis() {
		this.contextRunner.withPropertyValues("limiter.store=redis")
			.withBean(LettuceConnectionFactory.class, LimiterStoreTests::unreachable)
			.run((context) -> assertThat(context).getBean(RateLimiter.class).isInstanceOf(ResilientRateLimiter.class));
	}

	@Test
	void memoryNeverTouchesRedisEvenWhenItIsThere(CapturedOutput output) {
		this.contextRunner.withPropertyValues("limiter.store=memory", "spring.data.redis.host=redis.internal")
			.withBean(LettuceConnectionFactory.class, LimiterStoreTests::unreachable)
			.run((context) -> {
				assertThat(context).getBean(RateLimiter.class).isInstanceOf(InMemoryRateLimiter.class);
				assertThat(context).doesNotHaveBean(LimiterRedisConnection.class);
			});
		assertThat(output)
			.contains("Limiter stores rate limits in memory, for this instance only (limiter.store is " + "memory)")
			.doesNotContain("Limiter cannot reach Redis");
	}

	@Test
	void anUnknownStoreStopsTheStartNamingTheProperty() {
		this.contextRunner.withPropertyValues("limiter.store=sometimes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("limiter.store")
				.hasStackTraceContaining("sometimes"));
	}

	private static LettuceConnectionFactory unreachable() {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1));
	}

	private static FailureAnalysis analyze(Throwable failure) {
		FailureAnalysis analysis = new LimiterSetupFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("a LimiterSetupException in %s", failure).isNotNull();
		return analysis;
	}

}
