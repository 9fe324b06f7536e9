package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.Optional;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.Decision;
import dev.limiter.internal.call.CallPreparation.PreparedCall;

/**
 * The aspect's path for methods that return a {@code Mono} or a {@code Flux}: the
 * decision is taken on subscription, on the limiter's non-blocking path, so a
 * {@code Mono} that is never subscribed consumes nothing and a {@code Flux} is limited
 * once per subscription. Loaded only where Reactor is, so the aspect itself never links
 * Reactor.
 */
final class ReactiveRateLimitCall {

	private static final Decision[] NOT_LIMITED = new Decision[2];

	private ReactiveRateLimitCall() {
	}

	static boolean isReactive(Method method) {
		return Publisher.class.isAssignableFrom(method.getReturnType());
	}

	static Object rateLimit(RateLimitAspect aspect, MethodInvocation call, AnnotatedOperation operation,
			Class<?> targetClass) {
		Mono<Decision[]> admission = aspect.reactiveRequest()
			.get()
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.flatMap((request) -> decide(aspect,
					aspect.prepare(operation, targetClass, call.getArguments(), () -> request.orElse(null))));
		if (Mono.class.isAssignableFrom(call.getMethod().getReturnType())) {
			return admission.flatMap((decisions) -> Mono.from(proceed(call))
				.onErrorResume((ex) -> refunded(aspect, operation, decisions, ex)));
		}
		return admission.flatMapMany((decisions) -> Flux.from(proceed(call))
			.onErrorResume((ex) -> refunded(aspect, operation, decisions, ex)));
	}

	private static Mono<Decision[]> decide(RateLimitAspect aspect, PreparedCall prepared) {
		if (prepared == null) {
			return Mono.just(NOT_LIMITED);
		}
		AnnotatedOperation operation = prepared.operation();
		String key = prepared.key();
		Mono<Decision> enforced = Mono.empty();
		if (!operation.getEnforcedLimits().isEmpty()) {
			enforced = Mono.defer(() -> {
				long start = System.nanoTime();
				Object observation = aspect.observer().start(operation);
				return acquire(aspect, key, operation)
					.flatMap((decision) -> operation.waitsFor(decision)
							? Mono.delay(decision.retryAfter()).then(acquire(aspect, key, operation))
							: Mono.just(decision))
					.doOnError((ex) -> aspect.observer().stop(observation, null, ex))
					.doOnNext((decision) -> aspect.observer().stop(observation, decision, null))
					.doOnNext((decision) -> aspect.enforce(prepared, decision, System.nanoTime() - start));
			});
		}
		Mono<Decision> shadow = operation.getShadowLimits().isEmpty() ? Mono.empty() : Mono
			.defer(() -> Mono.fromFuture(
					aspect.rateLimiter().acquireAsync(key, operation.getPermits(), operation.getShadowLimits())))
			.doOnNext((decision) -> aspect.watched(operation, decision));
		// The store answers on the limiter's timer or Redis's event loop: the handler
		// runs
		// on Reactor's parallel threads instead, never on the threads that read replies.
		return enforced.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.flatMap((first) -> shadow.map(Optional::of)
				.defaultIfEmpty(Optional.empty())
				.map((second) -> new Decision[] { first.orElse(null), second.orElse(null) }))
			.publishOn(Schedulers.parallel());
	}

	private static Mono<Decision> acquire(RateLimitAspect aspect, String key, AnnotatedOperation operation) {
		return Mono.defer(() -> Mono
			.fromFuture(aspect.rateLimiter().acquireAsync(key, operation.getPermits(), operation.getEnforcedLimits())));
	}

	@SuppressWarnings("unchecked")
	/**
	 * Run the method on a copy of the call: it runs after the advisor has returned, once
	 * per subscription, and a call proceeds only once.
	 */
	private static Publisher<Object> proceed(MethodInvocation call) {
		try {
			Object result = (call instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone().proceed()
					: call.proceed();
			return (result != null) ? (Publisher<Object>) result : Mono.empty();
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	/**
	 * Give the permits back when the call failed with a {@code refundOn} exception; the
	 * refund talks to the store, so it runs off the event loop.
	 */
	private static <T> Mono<T> refunded(RateLimitAspect aspect, AnnotatedOperation operation, Decision[] decisions,
			Throwable ex) {
		if (!operation.refundsOn(ex) || decisions == NOT_LIMITED) {
			return Mono.error(ex);
		}
		return Mono.<T>fromRunnable(() -> {
			aspect.release(decisions[0]);
			aspect.release(decisions[1]);
		}).subscribeOn(Schedulers.boundedElastic()).then(Mono.error(ex));
	}

}
