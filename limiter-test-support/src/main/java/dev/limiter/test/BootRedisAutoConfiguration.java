package dev.limiter.test;

/**
 * Spring Boot's own Redis auto-configuration, whichever Boot line is on the classpath:
 * for tests that configure Redis through {@code spring.data.redis.*} as applications do.
 */
public final class BootRedisAutoConfiguration {

	private static final String[] CANDIDATES = {
			"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
			"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" };

	private BootRedisAutoConfiguration() {
	}

	/**
	 * Return the auto-configuration class of the Boot line on the classpath: Boot 4's,
	 * else Boot 3.5's.
	 * @return the class
	 */
	public static Class<?> type() {
		ClassLoader loader = BootRedisAutoConfiguration.class.getClassLoader();
		for (String name : CANDIDATES) {
			try {
				return Class.forName(name, false, loader);
			}
			catch (ClassNotFoundException ex) {
				// The other Boot line.
			}
		}
		throw new IllegalStateException("No Spring Boot Redis auto-configuration on the classpath");
	}

}
