package dev.limiter.benchmarks.peer;

import com.giffing.bucket4j.spring.boot.starter.config.aspect.Bucket4jAopConfig;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The HTTP peer benchmark's application: one endpoint unlimited, limited by Limiter and
 * limited by bucket4j-spring-boot-starter, both on the same Redis through Lettuce.
 */
// Bucket4j's aspect serves its @RateLimiting annotation, which nothing here uses, and its
// bean is named rateLimitAspect like Limiter's: with both, the context refuses to start.
@SpringBootApplication(exclude = Bucket4jAopConfig.class)
public class PeerApplication {

	public static void main(String[] args) {
		SpringApplication.run(PeerApplication.class, args);
	}

}
