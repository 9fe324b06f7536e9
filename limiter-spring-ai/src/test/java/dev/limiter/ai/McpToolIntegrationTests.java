package dev.limiter.ai;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import org.junit.jupiter.api.Test;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.limiter.ai.ToolCallIntegrationTests.Weather;
import dev.limiter.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @RateLimit} on a tool that a Spring AI MCP server offers, called by the MCP
 * SDK's own client over HTTP (streamable HTTP): a refused call is the tool's error result
 * ({@code isError}), with the refusal's message for the model, and the session goes on.
 */
class McpToolIntegrationTests {

	private static final RedisServer redis = RedisServer.shared();

	@Test
	void aRefusedToolCallOfAnMcpServerIsAnErrorResultAndTheSessionGoesOn() {
		redis.flushAll();
		Weather.calls.set(0);
		try (ConfigurableApplicationContext app = new SpringApplicationBuilder(McpApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.ai.mcp.server.name=weather",
					"spring.ai.openai.api-key=unused", "spring.ai.mcp.server.protocol=STREAMABLE",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
			.run()) {
			int port = ((WebServerApplicationContext) app).getWebServer().getPort();
			McpSyncClient client = McpClient
				.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port).build())
				.build();
			try {
				client.initialize();
				CallToolResult first = client.callTool(new CallToolRequest("weather", Map.of("city", "Berlin")));
				assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
				assertThat(text(first)).contains("Sunny in Berlin");
				CallToolResult refused = client.callTool(new CallToolRequest("weather", Map.of("city", "Berlin")));
				assertThat(refused.isError()).isTrue();
				assertThat(text(refused)).contains("Rate limit").contains("retry after");
				CallToolResult other = client.callTool(new CallToolRequest("weather", Map.of("city", "Paris")));
				assertThat(other.isError()).as("the session goes on, another city").isNotEqualTo(Boolean.TRUE);
				assertThat(text(other)).contains("Sunny in Paris");
				assertThat(Weather.calls).as("tool calls that ran").hasValue(2);
			}
			finally {
				client.closeGracefully();
			}
		}
	}

	@Test
	void theReadmesServerBeanIsThisOne() throws Exception {
		String readme = Files.readString(Path.of("README.md"));
		String section = readme.substring(readme.indexOf("### Tools of an MCP server"));
		int start = section.indexOf("```java\n") + 8;
		List<String> shown = lines(section.substring(start, section.indexOf("```", start)));
		assertThat(lines(Files.readString(Path.of("src/test/java/dev/limiter/ai/McpToolIntegrationTests.java"))))
			.containsSubsequence(shown);
	}

	private static List<String> lines(String code) {
		return code.lines().map(String::strip).filter((line) -> !line.isEmpty()).toList();
	}

	private static String text(CallToolResult result) {
		return result.content()
			.stream()
			.filter(TextContent.class::isInstance)
			.map((content) -> ((TextContent) content).text())
			.reduce("", String::concat);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class McpApplication {

		@Bean
		Weather weather() {
			return new Weather();
		}

		@Bean
		ToolCallbackProvider weatherTools(Weather weather) {
			return MethodToolCallbackProvider.builder().toolObjects(weather).build();
		}

	}

}
