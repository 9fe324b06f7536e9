package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.Decision;
import dev.limiter.internal.call.CallPreparation.PreparedCall;

/**
 * The aspect's path for methods that return a {@code Mono} or a {@code Flux}, and for
 * Kotlin's {@code suspend} functions and methods that return a {@code Flow}: the decision
 * is taken on subscription, on the limiter's non-blocking path, so a {@code Mono} that is
 * never subscribed consumes nothing and a {@code Flux} or a {@code Flow} is limited once
 * per collection. Loaded only where Reactor is, so the aspect itself never links Reactor.
 * <p>
 * Spring AOP runs a {@code suspend} function as a {@code Mono} inside the proxy and
 * awaits the {@code Mono} the advice returns in the caller's coroutine, whose Reactor
 * context (the exchange of the request) the subscription sees.
 */
final class ReactiveRateLimitCall {

	private static final Admission NOT_LIMITED = new Admission(null, null, null);

	private ReactiveRateLimitCall() {
	}

	private static final String FLOW_TYPE = "kotlinx.coroutines.flow.Flow";

	// Decided once per method: whether it answers later, and how.
	private static final Map<Method, Shape> shapes = new ConcurrentHashMap<>();

	static boolean isReactive(Method method) {
		return shape(method) != Shape.VALUE;
	}

	private static Shape shape(Method method) {
		Shape shape = shapes.get(method);
		return (shape != null) ? shape : shapes.computeIfAbsent(method, Shape::of);
	}

	static Object rateLimit(RateLimitAspect aspect, MethodInvocation call, AnnotatedOperation operation,
			Class<?> targetClass) {
		Mono<Admission> admission = aspect.reactiveRequest()
			.get()
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.flatMap((request) -> decide(aspect,
					aspect.prepare(operation, targetClass, call.getArguments(), () -> request.orElse(null))));
		Shape shape = shape(call.getMethod());
		if (shape == Shape.SINGLE) {
			return admission.flatMap((admitted) -> {
				Mono<Object> result = Mono.from(proceed(call))
					.onErrorResume((ex) -> refunded(aspect, operation, admitted, ex));
				return admitted.charged() ? result.flatMap(
						(value) -> settled(aspect, admitted, aspect.cost(admitted.prepared(), value)).thenReturn(value))
						: result;
			});
		}
		Flux<Object> stream = admission.flatMapMany((admitted) -> {
			Flux<Object> result = Flux.from(proceed(call))
				.onErrorResume((ex) -> refunded(aspect, operation, admitted, ex));
			if (!admitted.charged()) {
				return result;
			}
			// a stream's cost is the sum over its elements, settled when it ends (or is
			// cancelled), so that usage sent with the last element counts without
			// blocking
			AtomicLong cost = new AtomicLong(-1);
			AtomicBoolean settledOnce = new AtomicBoolean();
			return result.doOnNext((element) -> {
				long elementCost = aspect.cost(admitted.prepared(), element);
				if (elementCost >= 0) {
					cost.accumulateAndGet(elementCost, (sum, more) -> Math.max(sum, 0) + more);
				}
			})
				.concatWith(Mono.defer(() -> settledOnce.compareAndSet(false, true)
						? settled(aspect, admitted, cost.get()) : Mono.<Void>empty())
					.then(Mono.empty()))
				.doOnCancel(() -> {
					if (settledOnce.compareAndSet(false, true)) {
						settled(aspect, admitted, cost.get()).subscribe();
					}
				});
		});
		return (shape == Shape.FLOW) ? flowAdapter().fromPublisher(stream) : stream;
	}

	private static ReactiveAdapter flowAdapter() {
		return ReactiveAdapterRegistry.getSharedInstance().getAdapter(ClassUtils.resolveClassName(FLOW_TYPE, null));
	}

	private static Mono<Admission> decide(RateLimitAspect aspect, PreparedCall prepared) {
		if (prepared == null) {
			return Mono.just(NOT_LIMITED);
		}
		// A rejection the limiter already knows is answered on the subscriber's thread,
		// as
		// a handler's own error would be: no store call, so no thread to leave.
		try {
			aspect.rejectKnown(prepared);
		}
		catch (RuntimeException rejected) {
			return Mono.error(rejected);
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
		Mono<Decision> shadow = operation.getShadowLimits().isEmpty() ? Mono.empty()
				: Mono
					.defer(() -> Mono.fromFuture(aspect.rateLimiter()
						.acquireAsync(operation.shadowKey(key), operation.getPermits(), operation.getShadowLimits())))
					.doOnNext((decision) -> aspect.watched(operation, decision));
		// The store answers on the limiter's timer or Redis's event loop: the handler
		// runs
		// on Reactor's parallel threads instead, never on the threads that read replies.
		return enforced.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.flatMap((first) -> shadow.map(Optional::of)
				.defaultIfEmpty(Optional.empty())
				.map((second) -> new Admission(prepared, first.orElse(null), second.orElse(null))))
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
			if (result == null) {
				return Mono.empty();
			}
			return (result instanceof Publisher<?> publisher) ? (Publisher<Object>) publisher
					: (Publisher<Object>) flowAdapter().toPublisher(result);
		}
		catch (Throwable ex) {
			return Mono.error(ex);
		}
	}

	/**
	 * Give the permits back when the call failed with a {@code refundOn} exception; the
	 * refund talks to the store, so it runs off the event loop.
	 */
	private static <T> Mono<T> refunded(RateLimitAspect aspect, AnnotatedOperation operation, Admission admission,
			Throwable ex) {
		if (!operation.refundsOn(ex) || admission == NOT_LIMITED) {
			return Mono.error(ex);
		}
		return Mono.<T>fromRunnable(() -> {
			aspect.release(admission.enforced());
			aspect.release(admission.shadow());
		}).subscribeOn(Schedulers.boundedElastic()).then(Mono.error(ex));
	}

	/**
	 * Record the difference between what a call reserved and what it cost, on the
	 * limiter's non-blocking path; the response goes on on Reactor's parallel threads,
	 * never on the threads that read replies. A charge never fails the call.
	 */
	private static Mono<Void> settled(RateLimitAspect aspect, Admission admission, long cost) {
		long more = cost - admission.prepared().operation().getPermits();
		if (cost < 0 || more == 0) {
			return Mono.empty();
		}
		Mono<Void> enforced = (admission.enforced() == null || !admission.enforced().isAllowed()) ? Mono.empty()
				: Mono.defer(() -> Mono.fromFuture(aspect.rateLimiter().chargeAsync(admission.enforced(), more)))
					.doOnNext((charged) -> aspect.charged(admission.prepared(), charged))
					.then();
		Mono<Void> shadow = (admission.shadow() == null || !admission.shadow().isAllowed()) ? Mono.empty()
				: Mono.defer(() -> Mono.fromFuture(aspect.rateLimiter().chargeAsync(admission.shadow(), more))).then();
		return enforced.then(shadow).onErrorResume((ex) -> {
			aspect.chargeLost(admission.prepared(), ex);
			return Mono.empty();
		}).publishOn(Schedulers.parallel());
	}

	/**
	 * How a method answers: at once, with one value later ({@code Mono}, a
	 * {@code suspend} function, which Spring AOP runs as a {@code Mono}), or with a
	 * stream ({@code Flux} or another {@code Publisher}, or Kotlin's {@code Flow}).
	 */
	private enum Shape {

		VALUE, SINGLE, STREAM, FLOW;

		static Shape of(Method method) {
			Class<?> type = method.getReturnType();
			if (Mono.class.isAssignableFrom(type) || KotlinDetector.isSuspendingFunction(method)) {
				return SINGLE;
			}
			if (Publisher.class.isAssignableFrom(type)) {
				return STREAM;
			}
			if (type.getName().equals(FLOW_TYPE) && flowAdapter() != null) {
				return FLOW;
			}
			return VALUE;
		}

	}

	/**
	 * What a subscription was admitted with: the prepared call and the decisions of its
	 * enforced and shadowed limits ({@code null} where it has none).
	 */
	private record Admission(PreparedCall prepared, Decision enforced, Decision shadow) {

		boolean charged() {
			return this.prepared != null && this.prepared.operation().getCharge() != null;
		}

	}

}
