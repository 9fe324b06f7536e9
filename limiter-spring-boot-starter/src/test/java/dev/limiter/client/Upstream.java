package dev.limiter.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A third party's API with a strict quota of its own: at most {@code threshold} requests
 * in any window of {@code periodMillis} of its clock, and a 429 with {@code Retry-After}
 * beyond. It records when each request arrived and answers, per path, with headers the
 * test chooses.
 */
public final class Upstream implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(40);

	private final int threshold;

	private final long periodNanos;

	private final Deque<Long> window = new ArrayDeque<>();

	private final List<Long> admitted = new ArrayList<>();

	private final AtomicInteger tooMany = new AtomicInteger();

	private final Map<String, Map<String, String>> headers = new ConcurrentHashMap<>();

	private final Map<String, Integer> statuses = new ConcurrentHashMap<>();

	public Upstream(int threshold, long periodMillis) throws IOException {
		this.threshold = threshold;
		this.periodNanos = periodMillis * 1_000_000;
		// the JDK's server writes an answer's head and body apart: without TCP_NODELAY
		// every answer waits out the client's delayed ACK (40 ms on Linux)
		System.setProperty("sun.net.httpserver.nodelay", "true");
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
		this.server.setExecutor(this.executor);
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	public String url(String path) {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + path;
	}

	/** Answer a path with a status and headers of the test's choosing, once admitted. */
	void answer(String path, int status, Map<String, String> headers) {
		this.statuses.put(path, status);
		this.headers.put(path, headers);
	}

	private final AtomicInteger running = new AtomicInteger();

	private final AtomicInteger mostRunning = new AtomicInteger();

	private volatile long workMillis;

	/** Take this long to answer each admitted request, as a slow third party does. */
	void slow(long millis) {
		this.workMillis = millis;
	}

	/** Return the most requests this upstream had in hand at once. */
	int mostRunning() {
		return this.mostRunning.get();
	}

	private void handle(HttpExchange exchange) throws IOException {
		this.mostRunning.accumulateAndGet(this.running.incrementAndGet(), Math::max);
		try {
			if (this.workMillis > 0) {
				// the third party's own work
				Thread.sleep(this.workMillis);
			}
			answer(exchange);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.running.decrementAndGet();
		}
	}

	private void answer(HttpExchange exchange) throws IOException {
		long now = System.nanoTime();
		boolean admit;
		synchronized (this) {
			while (!this.window.isEmpty() && this.window.peekFirst() <= now - this.periodNanos) {
				this.window.pollFirst();
			}
			admit = this.window.size() < this.threshold;
			if (admit) {
				this.window.addLast(now);
				this.admitted.add(now);
			}
		}
		String path = exchange.getRequestURI().getPath();
		if (!admit) {
			this.tooMany.incrementAndGet();
			exchange.getResponseHeaders().set("Retry-After", "1");
			send(exchange, 429, "too many");
			return;
		}
		this.headers.getOrDefault(path, Map.of()).forEach(exchange.getResponseHeaders()::set);
		send(exchange, this.statuses.getOrDefault(path, 200), "ok");
	}

	private static void send(HttpExchange exchange, int status, String body) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(status, bytes.length);
		exchange.getResponseBody().write(bytes);
		exchange.close();
	}

	public int tooMany() {
		return this.tooMany.get();
	}

	public synchronized List<Long> admitted() {
		return List.copyOf(this.admitted);
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}
