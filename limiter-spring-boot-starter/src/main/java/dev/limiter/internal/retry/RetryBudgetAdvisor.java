package dev.limiter.internal.retry;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.MethodClassKey;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.function.SingletonSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.limiter.retry.RetryBudget;

/**
 * Applies a {@link RetryBudget @RetryBudget} to each attempt of its method.
 * <p>
 * Spring Framework's {@code @Retryable} puts its advisor before every other one, so this
 * advice runs once per attempt, on a copy of the call that shares the original's
 * attributes: the first attempt is counted, each later one is a retry the budget pays for
 * before it is made. A retry it cannot pay for fails at once with the previous attempt's
 * exception, and so does every attempt after it ({@code RetryBudgetAbort} ends the
 * retrying at the first). A method that returns a {@code Mono} or a {@code Flux} is
 * attempted again by subscribing again, so there each subscription is an attempt.
 */
public final class RetryBudgetAdvisor implements PointcutAdvisor, Ordered {

	static final String ATTEMPTED = RetryBudgetAdvisor.class.getName() + ".attempted";

	static final String LAST_FAILURE = RetryBudgetAdvisor.class.getName() + ".lastFailure";

	static final String DENIED = RetryBudgetAdvisor.class.getName() + ".denied";

	private static final boolean REACTOR = org.springframework.util.ClassUtils.isPresent("reactor.core.publisher.Flux",
			RetryBudgetAdvisor.class.getClassLoader());

	private final Supplier<Set<String>> names;

	private final Supplier<Function<String, RetryBudgetAccount>> accounts;

	private final MethodInterceptor advice = this::invoke;

	private final Map<MethodClassKey, String> budgets = new ConcurrentHashMap<>();

	private final Pointcut pointcut = new BudgetedMethods();

	/**
	 * Create the advisor.
	 * @param names supplies the budgets' names, to check each annotation as its bean is
	 * proxied
	 * @param accounts supplies, on first use, the accounts by budget name
	 */
	public RetryBudgetAdvisor(Supplier<Set<String>> names, Supplier<Function<String, RetryBudgetAccount>> accounts) {
		this.names = SingletonSupplier.of(names);
		this.accounts = SingletonSupplier.of(accounts);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	@Override
	public boolean isPerInstance() {
		return true;
	}

	// Innermost of the proxy's own advisors; @Retryable's is put before them all anyway.
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	private Object invoke(MethodInvocation invocation) throws Throwable {
		RetryBudgetAccount account = this.accounts.get().apply(budget(invocation));
		if (!(invocation instanceof ProxyMethodInvocation call)) {
			account.firstAttempt();
			return invocation.proceed();
		}
		if (call.getUserAttribute(ATTEMPTED) == null) {
			call.setUserAttribute(ATTEMPTED, Boolean.TRUE);
			account.firstAttempt();
		}
		else if (call.getUserAttribute(LAST_FAILURE) != null
				&& (call.getUserAttribute(DENIED) != null || !account.tryRetry())) {
			call.setUserAttribute(DENIED, Boolean.TRUE);
			throw (Throwable) call.getUserAttribute(LAST_FAILURE);
		}
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			call.setUserAttribute(LAST_FAILURE, ex);
			throw ex;
		}
		if (!REACTOR) {
			return result;
		}
		if (result instanceof Mono<?> mono) {
			return Mono.from(new Subscriptions(account).attempts(mono.flux()));
		}
		if (result instanceof Flux<?> flux) {
			return new Subscriptions(account).attempts(flux);
		}
		return result;
	}

	private String budget(MethodInvocation invocation) {
		Class<?> targetClass = (invocation.getThis() != null) ? AopUtils.getTargetClass(invocation.getThis())
				: invocation.getMethod().getDeclaringClass();
		return this.budgets.computeIfAbsent(new MethodClassKey(invocation.getMethod(), targetClass),
				(key) -> find(invocation.getMethod(), targetClass).value());
	}

	// The method's own annotation, else its class's for a public method.
	private static RetryBudget find(Method method, Class<?> targetClass) {
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		RetryBudget budget = AnnotatedElementUtils.findMergedAnnotation(specific, RetryBudget.class);
		if (budget == null && Modifier.isPublic(specific.getModifiers())
				&& specific.getDeclaringClass() != Object.class) {
			budget = AnnotatedElementUtils.findMergedAnnotation(targetClass, RetryBudget.class);
		}
		return budget;
	}

	/**
	 * The subscriptions to one call's publisher: the first is the first attempt, each
	 * later one a retry paid for before it subscribes.
	 */
	private static final class Subscriptions {

		private final RetryBudgetAccount account;

		private volatile boolean denied;

		private volatile Throwable last;

		Subscriptions(RetryBudgetAccount account) {
			this.account = account;
		}

		<T> Flux<T> attempts(Flux<T> call) {
			// a success ends the call: a later subscription (a repeat) starts another
			Flux<T> recorded = call.doOnError((ex) -> this.last = ex).doOnComplete(() -> {
				this.last = null;
				this.denied = false;
			});
			return Flux.defer(() -> {
				Throwable last = this.last;
				if (last == null) {
					this.account.firstAttempt();
					return recorded;
				}
				if (this.denied) {
					return Flux.error(last);
				}
				return this.account.tryRetryLater().flatMapMany((paid) -> {
					if (paid) {
						return recorded;
					}
					this.denied = true;
					return Flux.error(last);
				});
			});
		}

	}

	private final class BudgetedMethods extends StaticMethodMatcherPointcut {

		// The JDK's classes and Spring's own infrastructure never carry the annotation.
		BudgetedMethods() {
			setClassFilter((type) -> AnnotationUtils.isCandidateClass(type, RetryBudget.class));
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			RetryBudget budget = find(method, targetClass);
			if (budget == null) {
				return false;
			}
			if (!RetryBudgetAdvisor.this.names.get().contains(budget.value())) {
				throw new IllegalStateException("@RetryBudget(\"" + budget.value() + "\") on " + targetClass.getName()
						+ "." + method.getName() + " names no budget: add limiter.retry-budgets." + budget.value()
						+ ".ratio (and min-per-second), or use one of " + RetryBudgetAdvisor.this.names.get());
			}
			return true;
		}

	}

}
