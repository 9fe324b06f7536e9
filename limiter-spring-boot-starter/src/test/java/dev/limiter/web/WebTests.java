package dev.limiter.web;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.RequestPostProcessor;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.test.RedisServer;

/**
 * The MockMvc and Redis helpers the web tests share.
 */
final class WebTests {

	/** The Redis server of the web tests that need no server of their own. */
	static final RedisServer redis = RedisServer.shared();

	/** The client address of a request that sets none. */
	static final String DEFAULT_CLIENT = "10.0.0.1";

	private static final String CLIENT_SET = "test.remoteAddr";

	private WebTests() {
	}

	/**
	 * Return a servlet web context runner with the aspect and the starter over the shared
	 * Redis, and a test's own configuration.
	 */
	static WebApplicationContextRunner contextRunner(Class<?>... userConfigurations) {
		return new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, LimiterAutoConfiguration.class))
			.withUserConfiguration(userConfigurations)
			.withUserConfiguration(SharedRedisConfiguration.class);
	}

	/**
	 * Return a MockMvc over a started web context.
	 */
	static MockMvc mvc(WebApplicationContext context) {
		return MockMvcBuilders.webAppContextSetup(context).build();
	}

	/**
	 * Perform a request from {@link #DEFAULT_CLIENT} unless it says another client.
	 */
	static MockHttpServletResponse call(MockMvc mvc, MockHttpServletRequestBuilder request) throws Exception {
		return mvc.perform(request.with((servletRequest) -> {
			if (servletRequest.getAttribute(CLIENT_SET) == null) {
				servletRequest.setRemoteAddr(DEFAULT_CLIENT);
			}
			return servletRequest;
		})).andReturn().getResponse();
	}

	/**
	 * Return a response as status, headers and body, to compare two answers whole.
	 */
	static String render(MockHttpServletResponse response) throws Exception {
		StringBuilder text = new StringBuilder().append(response.getStatus()).append('\n');
		for (String name : response.getHeaderNames()) {
			text.append(name).append(": ").append(response.getHeaders(name)).append('\n');
		}
		return text.append('\n').append(response.getContentAsString()).toString();
	}

	/**
	 * Send a request from a client address.
	 */
	static RequestPostProcessor remoteAddr(String address) {
		return (request) -> {
			request.setRemoteAddr(address);
			request.setAttribute(CLIENT_SET, address);
			return request;
		};
	}

	/**
	 * Return every key of a Redis server, read with SCAN.
	 */
	static List<String> keys(RedisServer redis) {
		List<String> keys = new ArrayList<>();
		String cursor = "0";
		do {
			List<?> reply = (List<?>) redis.command("SCAN", cursor, "COUNT", "1000");
			cursor = reply.get(0).toString();
			((List<?>) reply.get(1)).forEach((key) -> keys.add(key.toString()));
		}
		while (!cursor.equals("0"));
		return keys;
	}

	/**
	 * The application's connection factory, to the shared Redis.
	 */
	@Configuration(proxyBeanMethods = false)
	static class SharedRedisConfiguration {

		@Bean
		LettuceConnectionFactory redisConnectionFactory() {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
		}

	}

}
