package dev.limiter.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first traffic of two freshly started instances is a flood on one key: a cold JVM on
 * a busy machine is slow to read Redis's answers, and that slowness must never be taken
 * for a Redis outage that the failure policy (fail-open by default) would answer by
 * admitting calls.
 */
class ColdStartEndToEndIntegrationTests {

	private static final int THRESHOLD = 50;

	private static final int REQUESTS = 2_000;

	private static final int CLIENTS = 64;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final List<Process> apps = new ArrayList<>();

	private final List<Path> logs = new ArrayList<>();

	private RedisServer redis;

	@AfterEach
	void stop() throws InterruptedException {
		this.apps.forEach(Process::destroy);
		for (Process app : this.apps) {
			app.waitFor(20, TimeUnit.SECONDS);
			app.destroyForcibly();
		}
		if (this.redis != null) {
			this.redis.close();
		}
	}

	@Test
	void aFloodOnColdInstancesNeverAdmitsMoreThanTheThreshold() throws Exception {
		this.redis = RedisServer.start();
		List<Integer> ports = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			// The default limiter settings (no longer timeout, as a user starts it); the
			// window is longer than the flood, so the oracle is the threshold itself.
			ports.add(startInstance("--limiter.limits.search.threshold=" + THRESHOLD,
					"--limiter.limits.search.period=60s"));
		}
		for (int i = 0; i < ports.size(); i++) {
			awaitListening(i, ports.get(i));
		}
		List<HttpResponse<String>> responses = flood(ports);
		List<HttpResponse<String>> admitted = responses.stream()
			.filter((response) -> response.statusCode() == 200)
			.toList();
		assertThat(responses).allSatisfy((response) -> assertThat(response.statusCode()).isIn(200, 429));
		assertThat(admitted).as("admitted calls in one window of %d", THRESHOLD).hasSize(THRESHOLD);
		assertThat(admitted).allSatisfy((response) -> assertThat(response.headers().firstValue("X-RateLimit-Remaining"))
			.as("decided by Redis, not by the failure policy")
			.isPresent());
		List<?> keys = (List<?>) this.redis.command("KEYS", "sample:*");
		assertThat(keys).as("one log for the one caller and limit").hasSize(1);
		assertThat(this.redis.command("ZCARD", keys.get(0).toString())).isEqualTo((long) THRESHOLD);
	}

	private int startInstance(String... arguments) throws IOException {
		int port = RedisServer.freePort();
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
		assertThat(jar).exists();
		Path log = Files.createTempFile("sample-app-cold-" + port, ".log");
		List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx512m", "-jar", jar.toString(),
				"--server.port=" + port, "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + this.redis.port(), "--sample.demo-redis=false"));
		command.addAll(List.of(arguments));
		this.apps.add(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start());
		this.logs.add(log);
		return port;
	}

	private List<HttpResponse<String>> flood(List<Integer> ports) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(CLIENTS);
		try {
			List<Callable<HttpResponse<String>>> calls = new ArrayList<>();
			for (int i = 0; i < REQUESTS; i++) {
				int port = ports.get(i % ports.size());
				calls.add(() -> get(port, "/search?q=cold"));
			}
			List<HttpResponse<String>> responses = new ArrayList<>();
			for (Future<HttpResponse<String>> future : executor.invokeAll(calls)) {
				responses.add(future.get());
			}
			return responses;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private void awaitListening(int index, int port) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (System.nanoTime() < deadline) {
			if (!this.apps.get(index).isAlive()) {
				throw new IllegalStateException("sample-app exited: " + Files.readString(this.logs.get(index)));
			}
			if (Files.readString(this.logs.get(index)).contains("Limiter sample is listening")) {
				return;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
		}
		throw new IllegalStateException("sample-app did not listen in 90s: " + Files.readString(this.logs.get(index)));
	}

	private static String javaBinary() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

}
