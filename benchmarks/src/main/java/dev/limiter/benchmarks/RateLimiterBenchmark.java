package dev.limiter.benchmarks;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One decision per operation, for every contender and workload, on one shared Lettuce
 * connection to a {@code redis-server} started for the fork. Sample mode gives the
 * latency percentiles; throughput is threads / mean time (closed loop).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RateLimiterBenchmark {

	@Param({ "incr", "evalsha", "limiter", "limiter-cached", "limiter-buckets", "limiter-token", "bucket4j", "scg" })
	public String contender;

	@Param({ "uniform", "zipf", "reject-heavy", "hot-key" })
	public String workload;

	private BenchRedis redis;

	private Workload traffic;

	private Contender.Subject subject;

	@Setup(Level.Trial)
	public void setUp() {
		this.redis = BenchRedis.start(null);
		this.traffic = Workload.of(this.workload);
		this.subject = Contender.of(this.contender).create(this.redis, this.traffic.limit());
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.redis.close();
	}

	@Benchmark
	public long acquire() {
		return this.subject.acquire(this.traffic.nextKey());
	}

}
