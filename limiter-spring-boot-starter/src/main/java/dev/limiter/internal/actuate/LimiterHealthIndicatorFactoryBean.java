package dev.limiter.internal.actuate;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.function.Supplier;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Creates the limiter's health indicator for whichever Spring Boot line is on the
 * classpath: {@code org.springframework.boot.health.contributor.HealthIndicator} on
 * Spring Boot 4 (module {@code spring-boot-health}),
 * {@code org.springframework.boot.actuate.health.HealthIndicator} on Spring Boot 3.5.
 * <p>
 * Both interfaces and their {@code Health} builders have the same shape in different
 * packages, so one jar serves both lines through a small proxy instead of two compiled
 * adapters (which would need both lines on one compile classpath). The object type is
 * reported up front, so the health registry finds the indicator by type.
 */
public final class LimiterHealthIndicatorFactoryBean implements FactoryBean<Object>, BeanClassLoaderAware {

	/** The health packages, Spring Boot 4 first. */
	static final String[] PACKAGES = { "org.springframework.boot.health.contributor",
			"org.springframework.boot.actuate.health" };

	private final Supplier<LimiterHealthCheck> check;

	private ClassLoader classLoader = ClassUtils.getDefaultClassLoader();

	private Object indicator;

	/**
	 * Create the factory.
	 * @param check supplies the check the indicator reports, on its first use
	 */
	public LimiterHealthIndicatorFactoryBean(Supplier<LimiterHealthCheck> check) {
		if (check == null) {
			throw new IllegalArgumentException("check must not be null");
		}
		this.check = check;
	}

	/**
	 * Return whether either health API is on the classpath.
	 * @param classLoader the class loader
	 * @return whether an indicator can be created
	 */
	public static boolean isHealthApiPresent(ClassLoader classLoader) {
		return healthPackage(classLoader) != null;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public Class<?> getObjectType() {
		String healthPackage = healthPackage(this.classLoader);
		return (healthPackage != null)
				? ClassUtils.resolveClassName(healthPackage + ".HealthIndicator", this.classLoader) : null;
	}

	@Override
	public synchronized Object getObject() {
		if (this.indicator == null) {
			Class<?> type = getObjectType();
			if (type == null) {
				throw new IllegalStateException(
						"Neither Spring Boot 4's nor 3.5's HealthIndicator is on the classpath");
			}
			this.indicator = Proxy.newProxyInstance(this.classLoader, new Class<?>[] { type },
					new Handler(this.check, type.getPackageName(), this.classLoader));
		}
		return this.indicator;
	}

	private static String healthPackage(ClassLoader classLoader) {
		for (String candidate : PACKAGES) {
			if (ClassUtils.isPresent(candidate + ".HealthIndicator", classLoader)) {
				return candidate;
			}
		}
		return null;
	}

	/**
	 * Answers {@code health()} with a {@code Health} built from the check; default
	 * methods (such as the one with details or not) run as declared.
	 */
	private static final class Handler implements InvocationHandler {

		private final Supplier<LimiterHealthCheck> check;

		private final Method status;

		private final Method withDetails;

		private final Method build;

		Handler(Supplier<LimiterHealthCheck> check, String healthPackage, ClassLoader classLoader) {
			this.check = check;
			Class<?> health = ClassUtils.resolveClassName(healthPackage + ".Health", classLoader);
			Class<?> builder = ClassUtils.resolveClassName(healthPackage + ".Health$Builder", classLoader);
			this.status = ReflectionUtils.findMethod(health, "status", String.class);
			this.withDetails = ReflectionUtils.findMethod(builder, "withDetails", Map.class);
			this.build = ReflectionUtils.findMethod(builder, "build");
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			if (method.getName().equals("health") && method.getParameterCount() == 0) {
				LimiterHealthCheck.Result result = this.check.get().check();
				Object builder = this.status.invoke(null, result.status());
				this.withDetails.invoke(builder, result.details());
				return this.build.invoke(builder);
			}
			if (method.isDefault()) {
				return InvocationHandler.invokeDefault(proxy, method, args);
			}
			return switch (method.getName()) {
				case "equals" -> proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				case "toString" -> "LimiterHealthIndicator";
				default -> throw new UnsupportedOperationException(method.toString());
			};
		}

	}

}
