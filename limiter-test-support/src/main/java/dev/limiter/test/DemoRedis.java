package dev.limiter.test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Makes a sample start on a machine without Redis: when nothing answers at the configured
 * {@code spring.data.redis.host} and {@code port}, starts a real {@code redis-server}
 * (the one on the PATH, else the binary packaged with the test support) on a free port
 * and points the application at it. It stops with the application;
 * {@code sample.demo-redis=false} turns it off.
 */
public class DemoRedis implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

	private static final Log logger = LogFactory.getLog(DemoRedis.class);

	@Override
	public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
		ConfigurableEnvironment environment = event.getEnvironment();
		if (!environment.getProperty("sample.demo-redis", Boolean.class, true)) {
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (reachable(host, port)) {
			logger.info("Using Redis at " + host + ":" + port);
			return;
		}
		RedisServer redis = RedisServer.start();
		Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "demo-redis-shutdown"));
		environment.getPropertySources()
			.addFirst(new MapPropertySource("demoRedis",
					Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
		logger.info("No Redis at " + host + ":" + port + "; started a demo redis-server " + redis.version() + " on "
				+ redis.host() + ":" + redis.port() + " (stops with the application)");
	}

	private static boolean reachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
