package dev.limiter.sample.gateway;

import java.util.Map;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.annotation.RateLimit;

/**
 * WebFlux endpoints limited by {@code @RateLimit}, decided without blocking.
 */
@RestController
class HelloController {

	@RateLimit(threshold = 2, period = 30)
	@GetMapping("/hello")
	Mono<Map<String, String>> hello() {
		return Mono.just(Map.of("greeting", "Hello from WebFlux!"));
	}

	// Limited once per subscription, not per element.
	@RateLimit(threshold = 3, period = 60)
	@GetMapping("/ticks")
	Flux<Integer> ticks() {
		return Flux.range(1, 5);
	}

}
