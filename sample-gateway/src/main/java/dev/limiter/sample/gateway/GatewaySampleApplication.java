package dev.limiter.sample.gateway;

import java.net.InetSocketAddress;

import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

import dev.limiter.test.DemoRedis;

/**
 * A Spring Cloud Gateway whose route to the servlet sample is limited by
 * {@code limiterRateLimiter}, with a WebFlux endpoint limited by {@code @RateLimit}.
 */
@SpringBootApplication
public class GatewaySampleApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(GatewaySampleApplication.class);
		application.addListeners(new DemoRedis(),
				(ApplicationListener<ApplicationReadyEvent>) GatewaySampleApplication::listening);
		application.run(args);
	}

	/**
	 * Each client address has its own quota on the gateway's routes.
	 * @return the key resolver the route names
	 */
	@Bean
	KeyResolver clientAddressKeyResolver() {
		return (exchange) -> {
			InetSocketAddress address = exchange.getRequest().getRemoteAddress();
			return Mono.justOrEmpty((address != null) ? address.getAddress().getHostAddress() : null);
		};
	}

	private static void listening(ApplicationReadyEvent event) {
		String port = event.getApplicationContext().getEnvironment().getProperty("local.server.port");
		LogFactory.getLog(GatewaySampleApplication.class)
			.info("Limiter gateway sample is listening on http://localhost:" + port + " (try: curl -i localhost:" + port
					+ "/hello, or curl -i localhost:" + port + "/api/greeting with the servlet sample on 8080)");
	}

}
