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
 * counts the requests that reached it and the tokens it served.
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

	private final HttpServer server;

	FakeOpenAi() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/v1/chat/completions", this::answer);
		this.server.setExecutor(Executors.newCachedThreadPool());
		this.server.start();
	}

	String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1";
	}

	private void answer(HttpExchange exchange) throws IOException {
		Map<?, ?> request = json.readValue(exchange.getRequestBody().readAllBytes(), Map.class);
		this.requests.incrementAndGet();
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
