package dev.limiter.ai;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.json.JsonMapper;

/**
 * An OpenAI-compatible chat completions server on a free loopback port (the JDK's
 * {@code HttpServer}): every answer is "Hello there" and reports 12 prompt and 30
 * completion tokens, in the response's {@code usage} or in a stream's last chunk; it
 * counts the requests that reached it and the tokens it served. Given a quota of tokens
 * ({@link #quota}), it keeps it as OpenAI does, a bucket refilled continuously: every
 * answer says what is left in {@code x-ratelimit-remaining-tokens} and
 * {@code x-ratelimit-reset-tokens}, and a request beyond it is a 429.
 */
final class FakeOpenAi implements AutoCloseable {

	static final int PROMPT_TOKENS = 12;

	static final int COMPLETION_TOKENS = 30;

	static final int TOTAL_TOKENS = PROMPT_TOKENS + COMPLETION_TOKENS;

	private static final JsonMapper json = JsonMapper.builder().build();

	final AtomicInteger requests = new AtomicInteger();

	final AtomicLong tokensServed = new AtomicLong();

	/** What the client sent back as the results of the tools the model asked for. */
	final java.util.List<String> toolResults = new java.util.concurrent.CopyOnWriteArrayList<>();

	/** The requests answered 429 because the quota of tokens had no room. */
	final AtomicInteger rejected = new AtomicInteger();

	private final HttpServer server;

	private long quota;

	private long windowNanos;

	private double available;

	private long refilledAt;

	FakeOpenAi() throws IOException {
		// the JDK's server writes an answer's head and body apart: without TCP_NODELAY
		// every answer waits out the client's delayed ACK (40 ms on Linux)
		System.setProperty("sun.net.httpserver.nodelay", "true");
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/v1/chat/completions", this::answer);
		this.server.setExecutor(Executors.newCachedThreadPool());
		this.server.start();
	}

	/**
	 * Keep a quota of tokens from now on, full.
	 * @param tokens the tokens of a window
	 * @param window the time in which the bucket refills from empty
	 */
	synchronized void quota(long tokens, java.time.Duration window) {
		this.quota = tokens;
		this.windowNanos = window.toNanos();
		this.available = tokens;
		this.refilledAt = System.nanoTime();
	}

	/** Take an answer's tokens from the quota, or say how long until they fit. */
	private synchronized boolean take(HttpExchange exchange) {
		if (this.quota == 0) {
			return true;
		}
		long now = System.nanoTime();
		this.available = Math.min(this.quota,
				this.available + (now - this.refilledAt) * (double) this.quota / this.windowNanos);
		this.refilledAt = now;
		boolean fits = this.available >= TOTAL_TOKENS;
		if (fits) {
			this.available -= TOTAL_TOKENS;
		}
		double missing = Math.max(0, Math.min(this.quota, TOTAL_TOKENS) - this.available);
		long resetMillis = (long) Math.ceil(missing * this.windowNanos / this.quota / 1_000_000);
		exchange.getResponseHeaders().set("x-ratelimit-limit-tokens", Long.toString(this.quota));
		exchange.getResponseHeaders()
			.set("x-ratelimit-remaining-tokens", Long.toString((long) Math.floor(this.available)));
		exchange.getResponseHeaders().set("x-ratelimit-reset-tokens", goDuration(resetMillis));
		return fits;
	}

	/** A duration as OpenAI writes it, in Go's form: {@code 1m2.5s}, {@code 120ms}. */
	private static String goDuration(long millis) {
		if (millis < 1_000) {
			return millis + "ms";
		}
		long minutes = millis / 60_000;
		String seconds = java.math.BigDecimal.valueOf(millis % 60_000, 3).stripTrailingZeros().toPlainString();
		return ((minutes > 0) ? minutes + "m" : "") + seconds + "s";
	}

	String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1";
	}

	private void answer(HttpExchange exchange) throws IOException {
		Map<?, ?> request = json.readValue(exchange.getRequestBody().readAllBytes(), Map.class);
		this.requests.incrementAndGet();
		if (!take(exchange)) {
			this.rejected.incrementAndGet();
			byte[] body = "{\"error\":{\"message\":\"Rate limit reached for tokens per min\",\"type\":\"tokens\"}}"
				.getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(429, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
			return;
		}
		if (Boolean.TRUE.equals(request.get("stream"))) {
			exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
			exchange.sendResponseHeaders(200, 0);
			try (OutputStream out = exchange.getResponseBody()) {
				for (String piece : new String[] { "Hel", "lo", " there" }) {
					send(out, "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
							+ "\"model\":\"gpt-fake\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
							+ "\"content\":\"" + piece + "\"},\"finish_reason\":null}]}");
				}
				send(out, "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
						+ "\"model\":\"gpt-fake\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
				send(out, "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
						+ "\"model\":\"gpt-fake\",\"choices\":[]," + usage() + "}");
				this.tokensServed.addAndGet(TOTAL_TOKENS);
				out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
			}
			catch (IOException ex) {
				// the client went away mid-stream
			}
			return;
		}
		java.util.List<?> messages = (java.util.List<?>) request.get("messages");
		Map<?, ?> last = (Map<?, ?>) messages.get(messages.size() - 1);
		if ("tool".equals(last.get("role"))) {
			this.toolResults.add(String.valueOf(last.get("content")));
		}
		else if (request.get("tools") != null) {
			// the model asks for the weather in Berlin
			respond(exchange,
					"{\"id\":\"c2\",\"object\":\"chat.completion\",\"created\":1700000000,"
							+ "\"model\":\"gpt-fake\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
							+ "\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":"
							+ "{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\\\"Berlin\\\"}\"}}]},"
							+ "\"finish_reason\":\"tool_calls\"}]," + usage() + "}");
			return;
		}
		byte[] body = ("{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"gpt-fake\","
				+ "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello there\"},"
				+ "\"finish_reason\":\"stop\"}]," + usage() + "}")
			.getBytes(StandardCharsets.UTF_8);
		this.tokensServed.addAndGet(TOTAL_TOKENS);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	private void respond(HttpExchange exchange, String json) throws IOException {
		byte[] body = json.getBytes(StandardCharsets.UTF_8);
		this.tokensServed.addAndGet(TOTAL_TOKENS);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	private static String usage() {
		return "\"usage\":{\"prompt_tokens\":" + PROMPT_TOKENS + ",\"completion_tokens\":" + COMPLETION_TOKENS
				+ ",\"total_tokens\":" + TOTAL_TOKENS + "}";
	}

	private static void send(OutputStream out, String data) throws IOException {
		out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
		out.flush();
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
