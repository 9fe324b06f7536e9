package com.example.consumer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.limiter.annotation.RateLimit;

/**
 * The README's quick start, and two limits the no-Redis check calls.
 */
@SpringBootApplication
@RestController
public class ConsumerApplication {

	@RateLimit(period = 60, threshold = 5)
	@GetMapping("/greet")
	public String greet() {
		return "hello";
	}

	@RateLimit(period = 30, threshold = 3)
	@GetMapping("/three")
	public String three() {
		return "three";
	}

	@RateLimit(period = 30, threshold = 10)
	@GetMapping("/ten")
	public String ten() {
		return "ten";
	}

	public static void main(String[] args) {
		SpringApplication.run(ConsumerApplication.class, args);
	}

}
