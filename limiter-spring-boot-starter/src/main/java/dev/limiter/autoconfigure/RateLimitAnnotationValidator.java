package dev.limiter.autoconfigure;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

import dev.limiter.internal.call.RateLimitAnnotationParser;
import dev.limiter.internal.call.RateLimitOperationSource;

/**
 * Checks every {@link dev.limiter.annotation.RateLimit @RateLimit} of a bean as the bean
 * is created, so that a bad annotation stops the application at startup with an
 * {@link dev.limiter.call.InvalidRateLimitException} instead of failing its first call.
 */
class RateLimitAnnotationValidator implements BeanPostProcessor {

	private final ObjectProvider<RateLimitOperationSource> operationSource;

	private final Map<Class<?>, Boolean> checked = new ConcurrentHashMap<>();

	RateLimitAnnotationValidator(ObjectProvider<RateLimitOperationSource> operationSource) {
		this.operationSource = operationSource;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		// Not computeIfAbsent: the first check creates the operation source, whose own
		// dependencies come back through this post-processor.
		if (!this.checked.containsKey(type)) {
			this.checked.put(type, check(type));
		}
		return bean;
	}

	private Boolean check(Class<?> type) {
		List<Method> methods = RateLimitAnnotationParser.findRateLimitedMethods(type);
		RateLimitOperationSource source = methods.isEmpty() ? null : this.operationSource.getIfAvailable();
		if (source == null) {
			return Boolean.FALSE;
		}
		for (Method method : methods) {
			source.getOperation(method, type);
		}
		return Boolean.TRUE;
	}

}
