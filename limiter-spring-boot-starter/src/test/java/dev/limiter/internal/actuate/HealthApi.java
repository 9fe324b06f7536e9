package dev.limiter.internal.actuate;

import java.lang.reflect.Method;
import java.util.Map;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Reads a health indicator through whichever Spring Boot line the tests run on, as the
 * starter itself does: tests compile once for both lines.
 */
public final class HealthApi {

	private HealthApi() {
	}

	/**
	 * Return the {@code HealthIndicator} interface of the line on the classpath.
	 * @return the interface
	 */
	public static Class<?> indicatorType() {
		for (String healthPackage : LimiterHealthIndicatorFactoryBean.PACKAGES) {
			String name = healthPackage + ".HealthIndicator";
			if (ClassUtils.isPresent(name, null)) {
				return ClassUtils.resolveClassName(name, null);
			}
		}
		throw new IllegalStateException("No HealthIndicator on the classpath");
	}

	/**
	 * Call {@code health()} and return the status code.
	 * @param indicator the indicator
	 * @return the status code, such as {@code UP}
	 */
	public static String status(Object indicator) {
		Object status = invoke(health(indicator), "getStatus");
		return (String) invoke(status, "getCode");
	}

	/**
	 * Call {@code health()} and return the details.
	 * @param indicator the indicator
	 * @return the details
	 */
	@SuppressWarnings("unchecked")
	public static Map<String, Object> details(Object indicator) {
		return (Map<String, Object>) invoke(health(indicator), "getDetails");
	}

	private static Object health(Object indicator) {
		return invoke(indicator, "health");
	}

	private static Object invoke(Object target, String name) {
		Method method = ReflectionUtils.findMethod(target.getClass(), name);
		if (method == null) {
			throw new IllegalStateException(target.getClass() + " has no " + name + "()");
		}
		ReflectionUtils.makeAccessible(method);
		return ReflectionUtils.invokeMethod(method, target);
	}

}
