package com.example.ai;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application built from the README's blocks and YAML answers over HTTP until the
 * day's 20,000 tokens are spent, then a 429 that never reaches the model.
 */
class SpringAiConsumerTests {

	private final HttpClient http = HttpClient.newHttpClient();

	private final AtomicInteger modelRequests = new AtomicInteger();

	@Test
	void theAssistantAnswersUntilTheDaysTokensAreSpent() throws Exception {
		// the JDK's server writes an answer's head and body apart: without TCP_NODELAY
		// every answer waits out the client's delayed ACK (40 ms on Linux)
		System.setProperty("sun.net.httpserver.nodelay", "true");
		HttpServer model = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		model.createContext("/v1/chat/completions", this::answer);
		model.setExecutor(Executors.newCachedThreadPool());
		model.start();
		try (RedisServer redis = RedisServer.start();
				ConfigurableApplicationContext context = SpringApplication.run(AssistantApplication.class,
						"--server.port=0", "--server.address=127.0.0.1",
						"--spring.ai.openai.base-url=http://127.0.0.1:" + model.getAddress().getPort() + "/v1",
						"--spring.ai.openai.api-key=test", "--spring.ai.openai.chat.model=gpt-fake",
						"--spring.ai.openai.max-retries=0", "--spring.data.redis.host=127.0.0.1",
						"--spring.data.redis.port=" + redis.port())) {
			String port = context.getEnvironment().getProperty("local.server.port");
			HttpResponse<String> response;
			int answered = 0;
			do {
				response = ask(port);
				if (response.statusCode() == 200) {
					assertThat(response.body()).isEqualTo("Hello there");
					answered++;
				}
			}
			while (response.statusCode() == 200 && answered < 1000);
			assertThat(response.statusCode()).isEqualTo(429);
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
			assertThat(answered).as("calls answered, each settled to the 42 tokens it used").isGreaterThan(100);
			assertThat(this.modelRequests).as("requests that reached the model").hasValue(answered);
		}
		finally {
			model.stop(0);
		}
	}

	private HttpResponse<String> ask(String port) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask"))
			.header("Content-Type", "text/plain")
			.POST(HttpRequest.BodyPublishers.ofString("Say hello"))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** An OpenAI-compatible answer that used 12 prompt and 30 completion tokens. */
	private void answer(HttpExchange exchange) throws IOException {
		exchange.getRequestBody().readAllBytes();
		this.modelRequests.incrementAndGet();
		byte[] body = ("{\"id\":\"c1\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"gpt-fake\","
				+ "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello there\"},"
				+ "\"finish_reason\":\"stop\"}],"
				+ "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":30,\"total_tokens\":42}}")
			.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

}
