package dev.limiter.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Builds on the packaged sample jar: two separate processes on two ports against one real
 * Redis, with concurrent HTTP requests at both.
 */
class SampleAppEndToEndIntegrationTests {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static RedisServer redis;

	private static final List<Process> apps = new ArrayList<>();

	private static final List<Integer> ports = new ArrayList<>();

	private static final List<Path> logs = new ArrayList<>();

	@BeforeAll
	static void startTwoInstances() throws Exception {
		redis = RedisServer.start();
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
		assertThat(jar).exists();
		for (int i = 0; i < 2; i++) {
			int port = RedisServer.freePort();
			Path log = Files.createTempFile("sample-app-" + port, ".log");
			Process process = new ProcessBuilder(javaBinary(), "-Xmx256m", "-jar", jar.toString(),
					"--server.port=" + port, "--spring.data.redis.host=127.0.0.1",
					"--spring.data.redis.port=" + redis.port(), "--sample.demo-redis=false",
					// A burst window longer than the 12 requests can take on a busy
					// machine, set
					// the way an operator would: a named limit overridden without a
					// rebuild.
					"--limiter.limits.orders-burst.period=5s")
				.redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			apps.add(process);
			ports.add(port);
			logs.add(log);
		}
		for (int i = 0; i < 2; i++) {
			awaitListening(i);
		}
	}

	@AfterAll
	static void stop() {
		apps.forEach(Process::destroy);
		for (Process app : apps) {
			try {
				app.waitFor(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			app.destroyForcibly();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void concurrentCallsAcrossBothProcessesAdmitExactlyTheThreshold() throws Exception {
		List<HttpResponse<String>> responses = fire("/quotes?symbol=E2E", null, 40);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200)
			.hasSize(5)
			.allSatisfy((response) -> assertThat(response.headers().firstValue("X-RateLimit-Remaining"))
				.as("decided by Redis, not by a failure policy")
				.isPresent());
		List<HttpResponse<String>> rejected = responses.stream()
			.filter((response) -> response.statusCode() == 429)
			.toList();
		assertThat(rejected).hasSize(35);
		for (HttpResponse<String> response : rejected) {
			assertThat(Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 10L);
			assertThat(response.headers().firstValue("RateLimit-Policy")).isPresent();
			assertThat(response.headers().firstValue("RateLimit"))
				.hasValueSatisfying((v) -> assertThat(v).contains("r=0"));
			assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("5");
			assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
			assertThat(response.headers().firstValue("X-RateLimit-Reset")).isPresent();
			assertThat(response.headers().firstValue("Content-Type"))
				.hasValueSatisfying((v) -> assertThat(v).startsWith("application/problem+json"));
			assertThat(response.body()).contains("\"status\":429");
		}
	}

	@Test
	void twoLimitsAcrossBothProcessesAndAdmittedAgainAfterRetryAfter() throws Exception {
		String alice = "Basic " + Base64.getEncoder().encodeToString("alice:password".getBytes(StandardCharsets.UTF_8));
		List<HttpResponse<String>> responses = fire("/orders/7", alice, 12);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200).hasSize(3);
		long retryAfter = responses.stream()
			.filter((response) -> response.statusCode() == 429)
			.mapToLong((response) -> Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow()))
			.max()
			.orElseThrow();
		assertThat(retryAfter).isBetween(1L, 5L);
		// Honour Retry-After as a client would: this wait is what is under test.
		LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(retryAfter));
		HttpResponse<String> again = get(ports.get(1), "/orders/7", alice);
		assertThat(again.statusCode()).isEqualTo(200);
		assertThat(again.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
	}

	@Test
	void usersDoNotShareAQuota() throws Exception {
		String bob = "Basic " + Base64.getEncoder().encodeToString("bob:password".getBytes(StandardCharsets.UTF_8));
		assertThat(get(ports.get(0), "/greeting", bob).statusCode()).isEqualTo(200);
		assertThat(get(ports.get(1), "/greeting", bob).statusCode()).isEqualTo(200);
		assertThat(get(ports.get(0), "/greeting", bob).statusCode()).isEqualTo(429);
		assertThat(get(ports.get(1), "/greeting", null).statusCode()).isEqualTo(200);
	}

	private static List<HttpResponse<String>> fire(String path, String authorization, int count) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			List<Callable<HttpResponse<String>>> calls = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				int port = ports.get(i % 2);
				calls.add(() -> get(port, path, authorization));
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

	private static HttpResponse<String> get(int port, String path, String authorization)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10));
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static void awaitListening(int index) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
		while (System.nanoTime() < deadline) {
			if (!apps.get(index).isAlive()) {
				throw new IllegalStateException("sample-app exited: " + Files.readString(logs.get(index)));
			}
			try {
				get(ports.get(index), "/not-a-route", null);
				return;
			}
			catch (IOException ex) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
			}
		}
		throw new IllegalStateException("sample-app did not listen in 90s: " + Files.readString(logs.get(index)));
	}

	private static String javaBinary() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

}
