package dev.limiter.benchmarks.mvc;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.annotation.RateLimit;

/**
 * The smallest Spring MVC application with a limit keyed by a request parameter, for
 * {@code benchmarks/http.sh}: web and Limiter, nothing else.
 */
@SpringBootApplication
public class MvcBenchmarkApplication {

	public static void main(String[] args) {
		SpringApplication.run(MvcBenchmarkApplication.class, args);
	}

	/**
	 * How most users key a limit: by what the request says, here a parameter.
	 */
	@RestController
	static class HitController {

		@RateLimit(name = "hit", period = 4, threshold = 5, key = "#user")
		@GetMapping("/hit")
		String hit(@RequestParam String user) {
			return "hit " + user;
		}

		// Unlimited, or limited by a rule by path (limiter.web.rules) when a run adds
		// one.
		@GetMapping("/plain")
		String plain(@RequestParam String user) {
			return "hit " + user;
		}

	}

}
