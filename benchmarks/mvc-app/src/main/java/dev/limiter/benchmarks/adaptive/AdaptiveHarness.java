package dev.limiter.benchmarks.adaptive;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.annotation.RateLimit;

/**
 * The harness of adaptive limits over HTTP: a backend that serves at most C calls at once
 * in S each and queues the rest (so its latency grows with load), behind one Spring MVC
 * application whose endpoints call it (a) unlimited, (b) under a fixed in-flight limit of
 * C, (c) under {@code algorithm: adaptive} with each strategy, (d) under Netflix's
 * {@code Gradient2Limit}. An open-loop generator offers twice the capacity (requests sent
 * on schedule, whatever the answers), and the backend's capacity halves mid-run. Printed,
 * and written as JSON: each variant's unloaded p99, then at 2× the p99 of admitted calls
 * and the goodput, and after the halving the same and the seconds until every later
 * second's p99 is within 2× the unloaded one.
 * <p>
 * Run from the repository:
 * {@code java -cp benchmarks/mvc-app/target/mvc-app.jar -Dloader.main=dev.limiter.benchmarks.adaptive.AdaptiveHarness org.springframework.boot.loader.launch.PropertiesLauncher [results.json] [seconds per phase]}.
 */
@SpringBootApplication
public class AdaptiveHarness {

	/** Calls the backend serves at once before the halving. */
	static final int CALLS_AT_ONCE = 10;

	/** What one call takes at the backend. */
	static final long SERVICE_MILLIS = 20;

	/**
	 * How long the generator waits for an answer: past it the call failed, and an
	 * unlimited backend's queue would otherwise hold more connections than the machine
	 * has descriptors.
	 */
	static final Duration TIMEOUT = Duration.ofSeconds(2);

	// unlimited last: its backlog outlasts its run
	static final List<String> VARIANTS = List
		.of(System.getProperty("variants", "fixed,gradient,vegas,aimd,netflix,unlimited").split(","));

	public static void main(String[] args) throws Exception {
		Path results = Path.of((args.length > 0) ? args[0] : "benchmarks/results/adaptive.json");
		int phaseSeconds = (args.length > 1) ? Integer.parseInt(args[1]) : 20;
		List<String> settings = new ArrayList<>(List.of("--server.port=0", "--limiter.store=memory",
				"--server.tomcat.threads.max=600", "--server.tomcat.accept-count=2000",
				"--server.tomcat.max-connections=6000", "--logging.level.root=WARN",
				"--limiter.limits.fixed.algorithm=in-flight", "--limiter.limits.fixed.threshold=" + CALLS_AT_ONCE,
				"--limiter.limits.fixed.period=30s", "--limiter.limits.fixed.protects=capacity",
				// the fixed limit is shared by every call: a remembered refusal would
				// refuse them all
				"--limiter.rejection-cache.enabled=false"));
		for (String strategy : List.of("gradient", "vegas", "aimd")) {
			// the shape: up to 200, from 20, never under 2
			settings.addAll(List.of("--limiter.limits." + strategy + ".algorithm=adaptive",
					"--limiter.limits." + strategy + ".threshold=200",
					"--limiter.limits." + strategy + ".adaptive.strategy=" + strategy,
					"--limiter.limits." + strategy + ".adaptive.initial=20",
					"--limiter.limits." + strategy + ".adaptive.min=2"));
		}
		ConfigurableApplicationContext application = new SpringApplication(AdaptiveHarness.class)
			.run(settings.toArray(String[]::new));
		String base = "http://127.0.0.1:" + application.getEnvironment().getProperty("local.server.port");
		Backends backends = application.getBean(Backends.class);
		double capacity = CALLS_AT_ONCE * 1000.0 / SERVICE_MILLIS;
		StringBuilder json = new StringBuilder("{\n  \"callsAtOnce\": " + CALLS_AT_ONCE + ",\n  \"serviceMillis\": "
				+ SERVICE_MILLIS + ",\n  \"offeredPerSecond\": " + (int) (2 * capacity) + ",\n  \"variants\": {");
		System.out.printf(Locale.ROOT, "%-10s %10s %10s %8s %12s %8s %8s%n", "variant", "unloaded", "p99 2x", "goodput",
				"p99 halved", "goodput", "settled");
		// every endpoint compiled and warm before anything is measured
		for (String variant : VARIANTS) {
			offer(base + "/" + variant, capacity / 4, 5, null, backends.of(variant));
		}
		for (int i = 0; i < VARIANTS.size(); i++) {
			String variant = VARIANTS.get(i);
			Map<String, Object> figures = run(base + "/" + variant, backends.of(variant), capacity, phaseSeconds,
					learned(application, variant));
			System.out.printf(Locale.ROOT, "%-10s %8.1fms %8.1fms %7.0f%% %10.1fms %7.0f%% %7ss %6.1f → %5.1f %7ss%n",
					variant, figures.get("unloadedP99Millis"), figures.get("p99Millis"), figures.get("goodput"),
					figures.get("halvedP99Millis"), figures.get("halvedGoodput"), figures.get("settledAfterSeconds"),
					figures.get("limitBefore"), figures.get("limitAfter"), figures.get("limitSettledAfterSeconds"));
			json.append((i == 0) ? "\n" : ",\n").append("    \"").append(variant).append("\": ").append(json(figures));
		}
		json.append("\n  }\n}\n");
		Files.createDirectories(results.toAbsolutePath().getParent());
		Files.writeString(results, json);
		application.close();
		System.exit(0);
	}

	/**
	 * One variant: 5 s unloaded at a tenth of capacity, then 2× capacity for a phase, the
	 * backend halved, and 2× the first capacity for another phase.
	 */
	/** Reads a variant's limit as it stands: learned, fixed, or none. */
	static java.util.function.IntSupplier learned(ConfigurableApplicationContext application, String variant) {
		if (variant.equals("netflix")) {
			return application.getBean(Calls.class)::netflixLimit;
		}
		if (variant.equals("unlimited")) {
			return () -> -1;
		}
		if (variant.equals("fixed")) {
			return () -> CALLS_AT_ONCE;
		}
		dev.limiter.internal.limits.LocalLimit local = application
			.getBean(dev.limiter.internal.limits.LimitResolver.class)
			.local()
			.get(variant);
		return () -> local.learned().limit();
	}

	static Map<String, Object> run(String url, Backend backend, double capacity, int phaseSeconds,
			java.util.function.IntSupplier limit) throws InterruptedException {
		List<int[]> limits = new java.util.concurrent.CopyOnWriteArrayList<>();
		java.util.concurrent.ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor();
		backend.restore();
		backend.most.set(0);
		List<Sample> unloaded = offer(url, capacity / 10, 10, null, backend);
		double unloadedP99 = p99(admitted(unloaded, 1, 10));
		long loadStart = System.nanoTime();
		watch.scheduleAtFixedRate(
				() -> limits
					.add(new int[] { (int) ((System.nanoTime() - loadStart) / 100_000_000L), limit.getAsInt() }),
				0, 100, java.util.concurrent.TimeUnit.MILLISECONDS);
		List<Sample> loaded = offer(url, 2 * capacity, 2 * phaseSeconds, phaseSeconds, backend);
		watch.shutdownNow();
		int warmUp = Math.min(5, phaseSeconds / 4);
		List<Sample> steady = admitted(loaded, warmUp, phaseSeconds);
		List<Sample> halved = admitted(loaded, phaseSeconds + phaseSeconds / 2, 2 * phaseSeconds);
		Map<String, Object> figures = new LinkedHashMap<>();
		figures.put("unloadedP99Millis", unloadedP99);
		figures.put("p99Millis", p99(steady));
		figures.put("goodput", 100.0 * steady.size() / (phaseSeconds - warmUp) / capacity);
		figures.put("halvedP99Millis", p99(halved));
		figures.put("halvedGoodput", 100.0 * halved.size() / (phaseSeconds - phaseSeconds / 2) / (capacity / 2));
		figures.put("settledAfterSeconds", settled(loaded, phaseSeconds, 2 * phaseSeconds, 2 * unloadedP99));
		figures.put("limitBefore", mean(limits, phaseSeconds - 5, phaseSeconds));
		figures.put("limitAfter", mean(limits, 2 * phaseSeconds - 5, 2 * phaseSeconds));
		figures.put("limitSettledAfterSeconds", limitSettled(limits, phaseSeconds, 2 * phaseSeconds));
		figures.put("refused", loaded.stream().filter((sample) -> sample.status == 503).count());
		figures.put("failed", loaded.stream().filter((sample) -> sample.status != 503 && sample.status != 200).count());
		// calls at the backend at once, queued or served: what the limit let through
		figures.put("mostAtBackend", backend.most.getAndSet(0));
		backend.awaitIdle();
		return figures;
	}

	/** The mean limit between two times, in seconds from the load's start. */
	static double mean(List<int[]> limits, int from, int to) {
		return limits.stream()
			.filter((sample) -> sample[0] >= from * 10 && sample[0] < to * 10)
			.mapToInt((sample) -> sample[1])
			.average()
			.orElse(Double.NaN);
	}

	/**
	 * The seconds after the halving from which the limit stays within a quarter of where
	 * it ends (the mean of the last 5 s).
	 */
	static String limitSettled(List<int[]> limits, int from, int to) {
		double end = mean(limits, to - 5, to);
		double settledAt = to;
		for (int i = limits.size() - 1; i >= 0; i--) {
			int[] sample = limits.get(i);
			if (sample[0] < from * 10) {
				break;
			}
			if (Math.abs(sample[1] - end) > 0.25 * end) {
				break;
			}
			settledAt = sample[0] / 10.0;
		}
		return (settledAt >= to) ? "never" : String.format(Locale.ROOT, "%.1f", settledAt - from);
	}

	/**
	 * The seconds after the halving from which every second's p99 stays within the bound.
	 */
	static String settled(List<Sample> samples, int from, int to, double boundMillis) {
		int settledAt = to;
		for (int second = to - 1; second >= from; second--) {
			List<Sample> inSecond = admitted(samples, second, second + 1);
			if (inSecond.isEmpty() || p99(inSecond) > boundMillis) {
				break;
			}
			settledAt = second;
		}
		return (settledAt >= to) ? "never" : Integer.toString(settledAt - from);
	}

	/**
	 * Send requests on a fixed schedule, whatever the answers, and wait for all of them
	 * (at most {@link #TIMEOUT} each); halve the backend after {@code halveAtSecond}, if
	 * given.
	 */
	static List<Sample> offer(String url, double perSecond, int seconds, Integer halveAtSecond, Backend backend)
			throws InterruptedException {
		ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
		java.util.concurrent.ExecutorService answers = Executors.newFixedThreadPool(4);
		HttpClient client = HttpClient.newBuilder().executor(answers).connectTimeout(Duration.ofSeconds(10)).build();
		HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).build();
		long start = System.nanoTime();
		long interval = (long) (1e9 / perSecond);
		long total = (long) (perSecond * seconds);
		List<java.util.concurrent.CompletableFuture<?>> sent = new ArrayList<>();
		boolean halved = false;
		for (long i = 0; i < total; i++) {
			long due = start + i * interval;
			long wait = due - System.nanoTime();
			if (wait > 0) {
				LockSupport.parkNanos(wait);
			}
			if (!halved && halveAtSecond != null && due - start >= halveAtSecond * 1_000_000_000L) {
				backend.halve();
				halved = true;
			}
			double at = (due - start) / 1e9;
			sent.add(client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).handle((response, failure) -> {
				// from the time it was due: a request the generator sent late waited too
				double millis = (System.nanoTime() - due) / 1e6;
				samples.add(new Sample(at, (failure != null) ? 0 : response.statusCode(), millis));
				return null;
			}));
		}
		for (java.util.concurrent.CompletableFuture<?> answer : sent) {
			answer.join();
		}
		answers.shutdown();
		return new ArrayList<>(samples);
	}

	static List<Sample> admitted(List<Sample> samples, double from, double to) {
		return samples.stream()
			.filter((sample) -> sample.status == 200 && sample.at >= from && sample.at < to)
			.toList();
	}

	static double p99(List<Sample> samples) {
		if (samples.isEmpty()) {
			return Double.NaN;
		}
		double[] millis = samples.stream().mapToDouble(Sample::millis).toArray();
		Arrays.sort(millis);
		return millis[Math.min(millis.length - 1, (int) Math.ceil(millis.length * 0.99) - 1)];
	}

	private static String json(Map<String, Object> figures) {
		StringBuilder json = new StringBuilder("{");
		figures.forEach((name, value) -> json.append((json.length() > 1) ? ", " : "")
			.append('"')
			.append(name)
			.append("\": ")
			.append((value instanceof String text) ? "\"" + text + "\"" : (value instanceof Double number)
					// JSON has no NaN: no admitted call to measure
					? (number.isNaN() ? "null" : String.format(Locale.ROOT, "%.1f", number)) : value));
		return json.append('}').toString();
	}

	record Sample(double at, int status, double millis) {
	}

	/**
	 * A backend that serves at most its calls at once, in {@link #SERVICE_MILLIS} each,
	 * and queues the rest in arrival order.
	 */
	static final class Backend {

		private final Semaphore atOnce = new Semaphore(CALLS_AT_ONCE, true);

		private final Semaphore held = new Semaphore(0);

		private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

		private final java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();

		String call() throws InterruptedException {
			this.most.accumulateAndGet(this.calls.incrementAndGet(), Math::max);
			try {
				this.atOnce.acquire();
				try {
					Thread.sleep(SERVICE_MILLIS);
					return "served";
				}
				finally {
					this.atOnce.release();
				}
			}
			finally {
				this.calls.decrementAndGet();
			}
		}

		/** Wait until no call is queued or served, so that the next run starts clean. */
		void awaitIdle() throws InterruptedException {
			while (this.calls.get() > 0) {
				Thread.sleep(100);
			}
		}

		/** Take half the backend away, as if half its servers were gone. */
		void halve() {
			Thread taker = new Thread(() -> {
				this.atOnce.acquireUninterruptibly(CALLS_AT_ONCE / 2);
				this.held.release(CALLS_AT_ONCE / 2);
			});
			taker.setDaemon(true);
			taker.start();
		}

		void restore() {
			int taken = this.held.drainPermits();
			this.atOnce.release(taken);
		}

	}

	/** One backend per variant, so that no run inherits another's queue. */
	static final class Backends {

		private final Map<String, Backend> byVariant = new LinkedHashMap<>();

		Backends() {
			VARIANTS.forEach((variant) -> this.byVariant.put(variant, new Backend()));
		}

		Backend of(String variant) {
			return this.byVariant.get(variant);
		}

	}

	@org.springframework.context.annotation.Bean
	Backends backends() {
		return new Backends();
	}

	/**
	 * The same call to each variant's backend, limited each its own way.
	 */
	@RestController
	static class Calls {

		private final Backends backends;

		final Gradient2Limit netflixLimit = Gradient2Limit.newBuilder()
			.initialLimit(20)
			.minLimit(2)
			.maxConcurrency(200)
			.build();

		private final Limiter<Void> netflix = SimpleLimiter.newBuilder().limit(this.netflixLimit).build();

		// a method, not the field: the bean is a proxy of Limiter's aspect
		public int netflixLimit() {
			return this.netflixLimit.getLimit();
		}

		Calls(Backends backends) {
			this.backends = backends;
		}

		@GetMapping("/unlimited")
		String unlimited() throws InterruptedException {
			return this.backends.of("unlimited").call();
		}

		@RateLimit(name = "fixed", key = "'all'")
		@GetMapping("/fixed")
		String fixed() throws InterruptedException {
			return this.backends.of("fixed").call();
		}

		@RateLimit(name = "gradient")
		@GetMapping("/gradient")
		String gradient() throws InterruptedException {
			return this.backends.of("gradient").call();
		}

		@RateLimit(name = "vegas")
		@GetMapping("/vegas")
		String vegas() throws InterruptedException {
			return this.backends.of("vegas").call();
		}

		@RateLimit(name = "aimd")
		@GetMapping("/aimd")
		String aimd() throws InterruptedException {
			return this.backends.of("aimd").call();
		}

		@GetMapping("/netflix")
		ResponseEntity<String> netflix() throws InterruptedException {
			Optional<Limiter.Listener> listener = this.netflix.acquire(null);
			if (listener.isEmpty()) {
				return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
			}
			try {
				String served = this.backends.of("netflix").call();
				listener.get().onSuccess();
				return ResponseEntity.ok(served);
			}
			catch (InterruptedException | RuntimeException ex) {
				listener.get().onIgnore();
				throw ex;
			}
		}

	}

}
