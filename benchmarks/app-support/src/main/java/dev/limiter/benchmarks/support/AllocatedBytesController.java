package dev.limiter.benchmarks.support;

import java.lang.management.ManagementFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /allocated}: the bytes the application's live threads have allocated so far,
 * which {@code benchmarks/http.sh} reads before and after a run for the allocation per
 * request. On Spring MVC and on WebFlux alike; the server's threads outlive a run.
 */
@AutoConfiguration
@RestController
public class AllocatedBytesController {

	/**
	 * Return the bytes allocated so far by the live threads.
	 * @return the bytes, in decimal
	 */
	@GetMapping("/allocated")
	public String allocated() {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long total = 0;
		for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
			total += Math.max(0, bytes);
		}
		return Long.toString(total);
	}

}
