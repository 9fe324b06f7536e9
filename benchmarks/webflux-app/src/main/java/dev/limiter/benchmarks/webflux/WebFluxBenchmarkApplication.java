package dev.limiter.benchmarks.webflux;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.annotation.RateLimit;

/**
 * A minimal WebFlux application with a limit keyed by a request parameter, and a Spring
 * Cloud Gateway whose routes forward to an unlimited handler of the same application, for
 * {@code benchmarks/http.sh}. The gateway is off unless
 * {@code spring.cloud.gateway.server.webflux.enabled=true}; its routes are in
 * {@code application-gateway.yml}.
 */
@SpringBootApplication
public class WebFluxBenchmarkApplication {

	public static void main(String[] args) {
		SpringApplication.run(WebFluxBenchmarkApplication.class, args);
	}

	/**
	 * The gateway's routes count per {@code user} parameter, as {@code /hit} does.
	 * @return the key resolver the routes name
	 */
	@Bean
	KeyResolver userKeyResolver() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getQueryParams().getFirst("user"));
	}

	/**
	 * A handler limited per request parameter, and the routes' unlimited upstream.
	 */
	@RestController
	static class HitController {

		@RateLimit(name = "hit", period = 4, threshold = 5, key = "#user")
		@GetMapping("/hit")
		Mono<String> hit(@RequestParam String user) {
			return Mono.just("hit " + user);
		}

		@GetMapping("/plain")
		Mono<String> plain(@RequestParam String user) {
			return Mono.just("hit " + user);
		}

	}

}
