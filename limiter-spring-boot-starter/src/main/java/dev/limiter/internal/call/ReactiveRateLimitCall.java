package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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

import dev.limiter.internal.key.ReactiveCurrentRequest;

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

	static Object rateLimit(CallPipeline pipeline, ReactiveCurrentRequest requests, MethodInvocation call,
			AnnotatedOperation operation, Class<?> targetClass) {
		Mono<Optional<CallHandle>> decided = requests.get()
			.map(Optional::of)
			.defaultIfEmpty(Optional.empty())
			.flatMap((request) -> decide(pipeline
				.handle(pipeline.prepare(operation, targetClass, call.getArguments(), () -> request.orElse(null)))));
		Shape shape = shape(call.getMethod());
		if (shape == Shape.SINGLE) {
			return decided.flatMap((held) -> {
				CallHandle handle = held.orElse(null);
				Mono<Object> result = Mono.from(proceed(call));
				if (handle == null) {
					return result;
				}
				result = result.onErrorResume((ex) -> end(handle, ex).then(Mono.error(ex)));
				result = handle.holdsSlots() ? ended(handle, result) : result;
				return handle.charged()
						? result.flatMap((value) -> settled(handle, handle.cost(value)).thenReturn(value)) : result;
			});
		}
		Flux<Object> stream = decided.flatMapMany((held) -> {
			CallHandle handle = held.orElse(null);
			Flux<Object> result = Flux.from(proceed(call));
			if (handle == null) {
				return result;
			}
			result = result.onErrorResume((ex) -> end(handle, ex).then(Mono.error(ex)));
			result = handle.holdsSlots() ? ended(handle, result) : result;
			if (!handle.charged()) {
				return result;
			}
			// a stream's cost is the sum over its elements, settled when it ends (or is
			// cancelled), so that usage sent with the last element counts without
			// blocking
			AtomicLong cost = new AtomicLong(-1);
			AtomicBoolean settledOnce = new AtomicBoolean();
			return result.doOnNext((element) -> {
				long elementCost = handle.cost(element);
				if (elementCost >= 0) {
					cost.accumulateAndGet(elementCost, (sum, more) -> Math.max(sum, 0) + more);
				}
			})
				.concatWith(Mono.defer(
						() -> settledOnce.compareAndSet(false, true) ? settled(handle, cost.get()) : Mono.<Void>empty())
					.then(Mono.empty()))
				.doOnCancel(() -> {
					if (settledOnce.compareAndSet(false, true)) {
						settled(handle, cost.get()).subscribe();
					}
				});
		});
		return (shape == Shape.FLOW) ? flowAdapter().fromPublisher(stream) : stream;
	}

	/** Where the ends of calls that talk to the store run: never on an event loop. */
	static java.util.concurrent.Executor endExecutor() {
		return (task) -> Schedulers.boundedElastic().schedule(task);
	}

	private static ReactiveAdapter flowAdapter() {
		return ReactiveAdapterRegistry.getSharedInstance().getAdapter(ClassUtils.resolveClassName(FLOW_TYPE, null));
	}

	/**
	 * Decide a subscription through the pipeline, off the threads that read Redis's
	 * replies ({@link ReactiveDecisions}).
	 */
	private static Mono<Optional<CallHandle>> decide(CallHandle handle) {
		if (handle == null) {
			return Mono.just(Optional.empty());
		}
		return ReactiveDecisions.decided(handle)
			.flatMap((admitted) -> admitted ? Mono.just(Optional.of(handle)) : Mono.error(handle.rejection()));
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
	 * End a call that holds slots in flight when its stream ends, whichever way: before
	 * its completion or its error reaches the subscriber (so that a caller who calls
	 * again at once finds its slot free), and when it is cancelled (a client that went
	 * away).
	 */
	private static Flux<Object> ended(CallHandle handle, Flux<Object> result) {
		return result.concatWith(end(handle, null).then(Mono.empty())).doOnCancel(() -> end(handle, null).subscribe());
	}

	/** End a call that holds slots in flight when its one value comes, as a stream's. */
	private static Mono<Object> ended(CallHandle handle, Mono<Object> result) {
		return result.flatMap((value) -> end(handle, null).thenReturn(value))
			.switchIfEmpty(end(handle, null).then(Mono.empty()))
			.doOnCancel(() -> end(handle, null).subscribe());
	}

	/**
	 * Return the end of a call (a {@code refundOn} failure refunded, slots in flight
	 * given back), once whoever asks first; an end that talks to the store runs off the
	 * event loop, and the response goes on on Reactor's parallel threads.
	 */
	private static Mono<Void> end(CallHandle handle, Throwable failure) {
		return Mono.defer(() -> handle.endTalksToStore(failure)
				? Mono.fromFuture(handle.endAsync(failure)).publishOn(Schedulers.parallel())
				: Mono.fromRunnable(() -> handle.end(failure)));
	}

	/**
	 * Record the difference between what a call reserved and what it cost, on the
	 * limiter's non-blocking path; the response goes on on Reactor's parallel threads,
	 * never on the threads that read replies. A charge never fails the call.
	 */
	private static Mono<Void> settled(CallHandle handle, long cost) {
		return Mono.defer(() -> Mono.fromFuture(handle.settleAsync(cost))).then().publishOn(Schedulers.parallel());
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

}
