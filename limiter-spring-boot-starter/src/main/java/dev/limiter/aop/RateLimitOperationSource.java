package dev.limiter.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.util.ClassUtils;

import dev.limiter.key.RateLimitInvocation;

/**
 * The registry of rate-limited methods: builds each method's {@link RateLimitOperation}
 * once with a {@link RateLimitAnnotationParser}, so that the hot path only looks it up,
 * evaluates key expressions, and lists every operation it knows.
 */
public class RateLimitOperationSource {

	private static final Object NONE = new Object();

	private final RateLimitAnnotationParser parser;

	private final BeanFactoryResolver beanResolver;

	private final Map<Method, Object> cache = new ConcurrentHashMap<>(64);

	/**
	 * Create a source.
	 * @param parser the parser of the annotations
	 * @param beanFactory the bean factory that resolves {@code @bean} references in key
	 * expressions, or {@code null}
	 */
	public RateLimitOperationSource(RateLimitAnnotationParser parser, BeanFactory beanFactory) {
		if (parser == null) {
			throw new IllegalArgumentException("parser must not be null");
		}
		this.parser = parser;
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * Return the methods of a class that are rate limited: those annotated themselves,
	 * and every public instance method declared by an annotated class.
	 * @param type the class
	 * @return the rate-limited methods
	 */
	public static List<Method> findRateLimitedMethods(Class<?> type) {
		return RateLimitAnnotationParser.findRateLimitedMethods(type);
	}

	/**
	 * Return the operation of a method, building and checking it on the first call.
	 * @param method the invoked method
	 * @param targetClass the class of the target object, or {@code null}
	 * @return the operation, or {@code null} if the method is not rate limited
	 * @throws InvalidRateLimitException if the annotations cannot be enforced
	 */
	public RateLimitOperation getOperation(Method method, Class<?> targetClass) {
		Method specific = ClassUtils.getMostSpecificMethod(method, targetClass);
		Object cached = this.cache.get(specific);
		if (cached == null) {
			RateLimitOperation operation = this.parser.parse(specific);
			cached = (operation != null) ? operation : NONE;
			this.cache.put(specific, cached);
		}
		return (cached != NONE) ? (RateLimitOperation) cached : null;
	}

	/**
	 * Return every operation built so far (every rate-limited bean method once the
	 * application has started, as startup validation builds them).
	 * @return the operations
	 */
	public Collection<RateLimitOperation> getOperations() {
		List<RateLimitOperation> operations = new ArrayList<>();
		for (Object cached : this.cache.values()) {
			if (cached != NONE) {
				operations.add((RateLimitOperation) cached);
			}
		}
		return operations;
	}

	/**
	 * Evaluate the key expression of an operation for one call.
	 * @param invocation the call, whose operation has a key expression
	 * @return the key: the operation's scope and the bounded value of the expression
	 * @throws IllegalStateException if the expression gives {@code null} or a blank value
	 */
	public String evaluateKey(RateLimitInvocation invocation) {
		return invocation.operation().getKeyExpression().evaluate(invocation, this.beanResolver);
	}

}
