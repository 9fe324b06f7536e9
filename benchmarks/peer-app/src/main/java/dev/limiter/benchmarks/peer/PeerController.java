package dev.limiter.benchmarks.peer;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.annotation.RateLimit;

/**
 * The sample's {@code /search} three times: a request parameter in, a small JSON map out.
 * Only how each is limited differs.
 */
@RestController
class PeerController {

	/**
	 * Unlimited: the floor of the other two.
	 */
	@GetMapping("/plain")
	Map<String, Object> plain(@RequestParam String q) {
		return search(q);
	}

	/**
	 * Limited by Limiter per caller; {@code limiter.limits.search} in application.yml
	 * wins over these numbers, so that one property sets both limiters.
	 */
	@RateLimit(name = "search", threshold = 100, period = 60)
	@GetMapping("/limiter")
	Map<String, Object> limiter(@RequestParam String q) {
		return search(q);
	}

	/**
	 * Limited by bucket4j-spring-boot-starter's servlet filter ({@code bucket4j.filters}
	 * in application.yml), before the request reaches Spring MVC.
	 */
	@GetMapping("/bucket4j")
	Map<String, Object> bucket4j(@RequestParam String q) {
		return search(q);
	}

	private static Map<String, Object> search(String q) {
		return Map.of("query", q, "results", new String[] { q + " one", q + " two" });
	}

}
