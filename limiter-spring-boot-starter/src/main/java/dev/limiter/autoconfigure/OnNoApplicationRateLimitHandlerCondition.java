package dev.limiter.autoconfigure;

import java.lang.reflect.Method;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

import dev.limiter.RateLimitExceededException;
import dev.limiter.internal.web.reactive.ReactiveRateLimitExceptionHandler;
import dev.limiter.internal.web.servlet.RateLimitExceptionHandler;

/**
 * Matches unless the application has a {@code @ControllerAdvice} bean with an
 * {@code @ExceptionHandler} for {@link RateLimitExceededException} (or a subclass): an
 * application that answers rejections itself keeps its answer. Catch-all handlers, such
 * as one for {@code Exception}, do not count.
 */
class OnNoApplicationRateLimitHandlerCondition extends SpringBootCondition implements ConfigurationCondition {

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		if (beanFactory == null) {
			return ConditionOutcome.match("no bean factory to search");
		}
		for (String name : beanFactory.getBeanDefinitionNames()) {
			if (beanFactory.findAnnotationOnBean(name, ControllerAdvice.class, false) == null) {
				continue;
			}
			Class<?> type = beanFactory.getType(name, false);
			if (type != null && !RateLimitExceptionHandler.class.isAssignableFrom(type)
					&& !ReactiveRateLimitExceptionHandler.class.getName().equals(type.getName())
					&& handlesRateLimitExceeded(ClassUtils.getUserClass(type))) {
				return ConditionOutcome
					.noMatch("@ControllerAdvice bean '" + name + "' handles RateLimitExceededException itself");
			}
		}
		return ConditionOutcome.match("no @ControllerAdvice handles RateLimitExceededException");
	}

	private static boolean handlesRateLimitExceeded(Class<?> type) {
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type)) {
			ExceptionHandler handler = AnnotatedElementUtils.findMergedAnnotation(method, ExceptionHandler.class);
			if (handler == null) {
				continue;
			}
			Class<?>[] exceptionTypes = (handler.value().length > 0) ? handler.value() : method.getParameterTypes();
			for (Class<?> exceptionType : exceptionTypes) {
				if (RateLimitExceededException.class.isAssignableFrom(exceptionType)) {
					return true;
				}
			}
		}
		return false;
	}

}
