package dev.limiter.web;

import java.util.ArrayList;
import java.util.List;

import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

import dev.limiter.test.RedisServer;

/**
 * The MockMvc and Redis helpers the web tests share.
 */
final class WebTests {

	/** The client address of a request that sets none. */
	static final String DEFAULT_CLIENT = "10.0.0.1";

	private static final String CLIENT_SET = "test.remoteAddr";

	private WebTests() {
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

}
