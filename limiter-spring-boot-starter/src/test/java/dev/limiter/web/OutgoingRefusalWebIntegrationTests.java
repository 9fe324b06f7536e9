package dev.limiter.web;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import dev.limiter.client.LimiterClientsAutoConfiguration;
import dev.limiter.client.Upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * A request to a rate-limited upstream that cannot get its turn within its wait, uncaught
 * inside a Spring MVC request: answered 503 with the time of the next turn, not 429, as
 * it is not the caller's quota that ran out.
 */
class OutgoingRefusalWebIntegrationTests {

	@BeforeEach
	void flush() {
		WebTests.redis.flushAll();
	}

	@Test
	void anUncaughtRefusalIsA503WithTheNextTurnAsRetryAfter() throws Exception {
		try (Upstream upstream = new Upstream(100, 1_000)) {
			WebTests.contextRunner(RelayConfiguration.class)
				.withConfiguration(AutoConfigurations.of(LimiterClientsAutoConfiguration.class))
				.withPropertyValues("limiter.clients.partner.hosts=127.0.0.1", "limiter.clients.partner.threshold=1",
						"limiter.clients.partner.period=1h", "limiter.clients.partner.max-wait=0s",
						"test.upstream=" + upstream.url("/data"))
				.run((context) -> {
					MockMvc mvc = WebTests.mvc(context);
					assertThat(WebTests.call(mvc, get("/relay")).getStatus()).isEqualTo(200);
					MockHttpServletResponse refused = WebTests.call(mvc, get("/relay"));
					assertThat(refused.getStatus()).isEqualTo(503);
					assertThat(Long.parseLong(refused.getHeader("Retry-After"))).isBetween(3_500L, 3_672L);
					assertThat(refused.getContentAsString()).contains("temporary-reduced-capacity")
						.contains("Calls to 'partner'");
					assertThat(upstream.admitted()).hasSize(1);
				});
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class RelayConfiguration {

		@Bean
		@Scope("prototype")
		RestClient.Builder restClientBuilder() {
			return RestClient.builder();
		}

		@Bean
		Relay relay(RestClient.Builder builder, org.springframework.core.env.Environment environment) {
			return new Relay(builder.build(), environment.getProperty("test.upstream"));
		}

	}

	@RestController
	static class Relay {

		private final RestClient client;

		private final String upstream;

		Relay(RestClient client, String upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		@GetMapping("/relay")
		String relay() {
			return this.client.get().uri(this.upstream).retrieve().body(String.class);
		}

	}

}
