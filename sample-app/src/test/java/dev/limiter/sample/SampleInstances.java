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

import dev.limiter.test.RedisServer;

/**
 * Instances of the packaged sample jar, each a process of its own on a free port against
 * one Redis, and the HTTP calls the end-to-end tests send them.
 */
final class SampleInstances implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private final List<Process> processes = new ArrayList<>();

	private final List<Integer> ports = new ArrayList<>();

	private final List<Path> logs = new ArrayList<>();

	private final List<String> jvmOptions = new ArrayList<>();

	/**
	 * Start instances and wait until each says it listens.
	 * @param count how many
	 * @param redis the Redis they share
	 * @param arguments further arguments of every instance, such as property overrides
	 * @return the instances
	 */
	static SampleInstances start(int count, RedisServer redis, String... arguments) throws Exception {
		return start(count, redis, List.of(), arguments);
	}

	/**
	 * Start instances with JVM options and wait until each says it listens.
	 * @param count how many
	 * @param redis the Redis they share
	 * @param jvmOptions options of every instance's JVM, such as system properties
	 * @param arguments further arguments of every instance, such as property overrides
	 * @return the instances
	 */
	static SampleInstances start(int count, RedisServer redis, List<String> jvmOptions, String... arguments)
			throws Exception {
		SampleInstances instances = new SampleInstances();
		instances.jvmOptions.addAll(jvmOptions);
		try {
			for (int i = 0; i < count; i++) {
				instances.launch(redis, arguments);
			}
			for (int i = 0; i < count; i++) {
				instances.awaitListening(i);
			}
			return instances;
		}
		catch (Exception | Error ex) {
			instances.close();
			throw ex;
		}
	}

	/**
	 * Return what one instance logged so far.
	 */
	String log(int index) throws IOException {
		return Files.readString(this.logs.get(index));
	}

	long pid(int index) {
		return this.processes.get(index).pid();
	}

	int port(int index) {
		return this.ports.get(index);
	}

	/**
	 * Send one GET to one instance.
	 */
	HttpResponse<String> get(int index, String path, String authorization) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(index) + path))
			.timeout(Duration.ofSeconds(30));
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Send {@code count} concurrent GETs from {@code clients} threads, spread over the
	 * instances in turn.
	 */
	List<HttpResponse<String>> fire(String path, String authorization, int count, int clients) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(clients);
		try {
			List<Callable<HttpResponse<String>>> calls = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				int index = i % this.ports.size();
				calls.add(() -> get(index, path, authorization));
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

	@Override
	public void close() throws InterruptedException {
		this.processes.forEach(Process::destroy);
		for (Process process : this.processes) {
			process.waitFor(20, TimeUnit.SECONDS);
			process.destroyForcibly();
		}
	}

	private void launch(RedisServer redis, String... arguments) throws IOException {
		Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
		if (!Files.exists(jar)) {
			throw new IllegalStateException("No sample jar at " + jar + ": run the tests with ./mvnw verify");
		}
		int port = RedisServer.freePort();
		Path log = Files.createTempFile("sample-app-" + port, ".log");
		List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx512m"));
		command.addAll(this.jvmOptions);
		command.addAll(List.of("-jar", jar.toString(), "--server.port=" + port, "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + redis.port(), "--sample.demo-redis=false"));
		command.addAll(List.of(arguments));
		this.processes.add(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start());
		this.ports.add(port);
		this.logs.add(log);
	}

	private void awaitListening(int index) throws IOException {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			String log = Files.readString(this.logs.get(index));
			if (log.contains("Limiter sample is listening")) {
				return;
			}
			if (!this.processes.get(index).isAlive()) {
				throw new IllegalStateException("sample-app exited: " + log);
			}
			// Polls the log of another process; there is nothing to wait on instead.
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
		}
		throw new IllegalStateException(
				"sample-app did not listen in " + START_TIMEOUT + ": " + Files.readString(this.logs.get(index)));
	}

	private static String javaBinary() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

}
