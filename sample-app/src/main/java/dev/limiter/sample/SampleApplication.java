package dev.limiter.sample;

import org.apache.commons.logging.LogFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

import dev.limiter.test.DemoRedis;

/**
 * A small API that shows every Limiter feature; see the README's quick start.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addListeners(new DemoRedis(),
				(ApplicationListener<ApplicationReadyEvent>) SampleApplication::listening);
		application.run(args);
	}

	private static void listening(ApplicationReadyEvent event) {
		String port = event.getApplicationContext().getEnvironment().getProperty("local.server.port");
		LogFactory.getLog(SampleApplication.class)
			.info("Limiter sample is listening on http://localhost:" + port + " (try: curl -i localhost:" + port
					+ "/greeting)");
	}

}
