package dev.limiter.benchmarks.peer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The HTTP peer benchmark's application: one endpoint unlimited, limited by Limiter and
 * limited by bucket4j-spring-boot-starter, both on the same Redis through Lettuce.
 */
// Both starters whole, aspects included: Limiter's aspect bean is named so that it does
// not
// clash with Bucket4j's "rateLimitAspect".
@SpringBootApplication
public class PeerApplication {

	public static void main(String[] args) {
		SpringApplication.run(PeerApplication.class, args);
	}

}
