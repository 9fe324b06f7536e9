package dev.limiter.retry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP downstream that counts its requests and answers each {@code 503 down} while
 * it fails, {@code 200 receipt} once it recovers, or both in turn.
 */
final class Downstream implements AutoCloseable {

	/** What the downstream does. */
	enum Mode {

		/** 503 to every request. */
		FAIL,

		/** 200 to every request. */
		OK,

		/** 503 to the odd requests, 200 to the even ones. */
		FAIL_ODD,

		/** 503 with {@code Retry-After: 1} to the first request, 200 to the others. */
		HOLD_ONCE

	}

	final AtomicInteger requests = new AtomicInteger();

	/** When each request arrived, in nanoseconds of {@link System#nanoTime()}. */
	final List<Long> arrivals = new CopyOnWriteArrayList<>();

	final AtomicReference<Mode> mode = new AtomicReference<>(Mode.FAIL);

	private final HttpServer server;

	private final ExecutorService threads = Executors.newFixedThreadPool(4);

	Downstream() throws IOException {
		// Each response in one segment: calls must not wait on delayed ACKs.
		System.setProperty("sun.net.httpserver.nodelay", "true");
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/", (exchange) -> {
			exchange.getRequestBody().readAllBytes();
			this.arrivals.add(System.nanoTime());
			int request = this.requests.incrementAndGet();
			Mode now = this.mode.get();
			boolean fail = now == Mode.FAIL || (now != Mode.OK && request % 2 == 1);
			if (fail && now == Mode.HOLD_ONCE) {
				exchange.getResponseHeaders().add("Retry-After", "1");
			}
			byte[] body = (fail ? "down" : "receipt").getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(fail ? 503 : 200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		this.server.setExecutor(this.threads);
		this.server.start();
	}

	String url() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	void reset(Mode mode) {
		this.requests.set(0);
		this.arrivals.clear();
		this.mode.set(mode);
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
