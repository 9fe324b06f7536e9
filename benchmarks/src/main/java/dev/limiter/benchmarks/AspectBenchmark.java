package dev.limiter.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.context.support.StaticMessageSource;

import dev.limiter.Algorithm;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;
import dev.limiter.annotation.RateLimit;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.internal.call.RateLimitAdvisor;
import dev.limiter.internal.call.RateLimitAnnotationParser;
import dev.limiter.internal.call.CallClock;
import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.call.RateLimitAspect;
import dev.limiter.internal.call.RateLimitOperationSource;
import dev.limiter.internal.key.MethodRateLimitKeyResolver;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.offenders.TopOffenders;
import dev.limiter.memory.InMemoryRateLimiter;

/**
 * What the aspect costs per call: a method through {@code RateLimitAspect} with the
 * in-memory store, next to the same method unannotated on the same proxy, with the
 * default key, a SpEL key, and a call the limit rejects. No Redis: this is the aspect's
 * own work (operation lookup, key, decision, listeners) plus the in-memory token bucket.
 * <p>
 * {@code java -jar benchmarks/target/benchmarks.jar AspectBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AspectBenchmark {

	private AnnotationConfigApplicationContext context;

	private Service service;

	@Setup(Level.Trial)
	public void start() {
		this.context = new AnnotationConfigApplicationContext(Beans.class);
		this.service = this.context.getBean(Service.class);
	}

	@TearDown(Level.Trial)
	public void stop() {
		this.context.close();
	}

	@Benchmark
	public int unannotated() {
		return this.service.plain(42);
	}

	@Benchmark
	public int annotated() {
		return this.service.limited(42);
	}

	@Benchmark
	public int spelKey() {
		return this.service.limitedBy("alice", 42);
	}

	@Benchmark
	public Object rejected() {
		try {
			return this.service.rejected(42);
		}
		catch (RateLimitExceededException ex) {
			return ex;
		}
	}

	/**
	 * The limited methods; the token bucket keeps one counter per key however long the
	 * run.
	 */
	public static class Service {

		public int plain(int value) {
			return value + 1;
		}

		@RateLimit(threshold = 1_000_000_000, period = 1, algorithm = Algorithm.TOKEN_BUCKET)
		public int limited(int value) {
			return value + 1;
		}

		@RateLimit(threshold = 1_000_000_000, period = 1, algorithm = Algorithm.TOKEN_BUCKET, key = "#user")
		public int limitedBy(String user, int value) {
			return value + 1;
		}

		@RateLimit(threshold = 1, period = 3600, algorithm = Algorithm.TOKEN_BUCKET)
		public int rejected(int value) {
			return value + 1;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAspectJAutoProxy
	static class Beans {

		@Bean
		Service service() {
			return new Service();
		}

		@Bean
		RateLimiter rateLimiter() {
			return new InMemoryRateLimiter();
		}

		@Bean
		static RateLimitAdvisor rateLimitAdvisor(ObjectProvider<RateLimitAspect> aspect) {
			return new RateLimitAdvisor(aspect::getObject);
		}

		@Bean
		RateLimitAspect rateLimitAspect(RateLimiter rateLimiter, BeanFactory beanFactory) {
			RateLimitOperationSource operations = new RateLimitOperationSource(new RateLimitAnnotationParser(
					new LimitResolver(Map.of(), Algorithm.SLIDING_LOG, false), beanFactory));
			CallPipeline pipeline = new CallPipeline(rateLimiter, operations, new MethodRateLimitKeyResolver(),
					new StaticMessageSource(), List.of(), null, CallClock.SYSTEM);
			// As with the ratelimits endpoint: every rejection is counted for its
			// ranking.
			pipeline.setRejectionTally(new TopOffenders());
			return new RateLimitAspect(pipeline, LimiterProperties.DEFAULT_ASPECT_ORDER, null);
		}

	}

}
