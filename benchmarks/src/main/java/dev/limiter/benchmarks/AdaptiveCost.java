package dev.limiter.benchmarks;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.limiter.internal.adaptive.AdaptiveLimit;
import dev.limiter.internal.adaptive.AdaptiveStrategy;

/**
 * What one admitted call costs an adaptive limit: its admission and its end (which
 * teaches the limit), per strategy, beside Netflix's {@code SimpleLimiter} with
 * {@code Gradient2Limit} doing the same. No store, no I/O: the decision alone. Run with
 * {@code -prof gc} for the allocation per call:
 * {@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main AdaptiveCost -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AdaptiveCost {

	@Param({ "gradient", "vegas", "aimd", "netflix-gradient2" })
	public String strategy;

	private AdaptiveLimit limit;

	private Limiter<Void> netflix;

	@Setup
	public void setUp() {
		if (this.strategy.startsWith("netflix")) {
			this.netflix = SimpleLimiter.newBuilder()
				.limit(Gradient2Limit.newBuilder().initialLimit(20).maxConcurrency(200).build())
				.build();
		}
		else {
			this.limit = new AdaptiveLimit(AdaptiveStrategy.of(this.strategy), 20, 2, 200, System::nanoTime);
		}
	}

	@Benchmark
	public boolean admitAndEnd() {
		if (this.netflix != null) {
			Optional<Limiter.Listener> listener = this.netflix.acquire(null);
			listener.ifPresent(Limiter.Listener::onSuccess);
			return listener.isPresent();
		}
		AdaptiveLimit.Permit permit = this.limit.tryAcquire(null);
		if (permit != null) {
			permit.end(false);
		}
		return permit != null;
	}

	public static void main(String[] args) throws Exception {
		org.openjdk.jmh.Main.main(new String[] { AdaptiveCost.class.getSimpleName(), "-prof", "gc" });
	}

}
