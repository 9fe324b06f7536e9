package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import dev.limiter.Decision;
import dev.limiter.Limit;
import dev.limiter.RateLimitExceededException;
import dev.limiter.call.InvalidRateLimitException;
import dev.limiter.call.RouteLimitSettings;
import dev.limiter.internal.call.CallPipeline.Admission;
import dev.limiter.internal.call.CallPreparation.PreparedCall;
import dev.limiter.internal.limits.LimitResolver.Spelling;

/**
 * The decision pipeline as a surface that is not a web request sees it, such as gRPC: its
 * annotated methods and the operations configured by name, each call prepared with the
 * surface's own request ({@link SurfaceRequest}), decided, answered and ended through the
 * one {@link CallPipeline}.
 */
public final class SurfaceCalls {

	private final CallPipeline pipeline;

	private final RouteCalls routes;

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private BeanFactoryResolver beanResolver;

	/**
	 * Create the calls of a surface.
	 * @param pipeline decides the calls
	 * @param routes registers operations configured by name, as gateway routes are
	 */
	public SurfaceCalls(CallPipeline pipeline, RouteCalls routes) {
		this.pipeline = pipeline;
		this.routes = routes;
	}

	/**
	 * Let key expressions refer to beans as {@code @name}.
	 * @param beanFactory the application's beans
	 */
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanResolver = new BeanFactoryResolver(beanFactory);
	}

	/**
	 * Return the operation of an annotated method.
	 * @param method the method
	 * @param targetClass the class of the object it runs on
	 * @return the operation, or {@code null} when the method has no limit
	 */
	public AnnotatedOperation operation(Method method, Class<?> targetClass) {
		return this.pipeline.operations().getOperation(method, targetClass);
	}

	/**
	 * Register an operation limited by named limits of {@code limiter.limits}, known by
	 * its name (a gRPC method's full name), beside the annotated methods.
	 * @param id the operation's name
	 * @param limitNames the names of its limits
	 * @return the operation
	 * @throws IllegalArgumentException naming what to fix
	 */
	public AnnotatedOperation register(String id, List<String> limitNames) {
		return register(id, limitNames, null, null);
	}

	/**
	 * Register an operation limited by named limits, whose calls are keyed by an
	 * expression over the surface's variables ({@link SurfaceRequest#VARIABLES}) and
	 * {@code @beans}, such as {@code #headers.getFirst('X-Api-Key')}, instead of their
	 * caller.
	 * @param id the operation's name
	 * @param limitNames the names of its limits
	 * @param key the key expression, or {@code null} for the caller
	 * @param property the property that gives the expression, as named in errors
	 * @return the operation
	 * @throws IllegalArgumentException naming what to fix
	 */
	public AnnotatedOperation register(String id, List<String> limitNames, String key, String property) {
		RouteLimitSettings settings = new RouteLimitSettings();
		settings.setName(limitNames);
		KeyExpression expression = null;
		if (key != null && !key.isBlank()) {
			try {
				expression = KeyExpression.parse(this.parser, this.beanResolver, property, null, key);
			}
			catch (InvalidRateLimitException ex) {
				throw new IllegalArgumentException(property + ": " + ex.getProblem() + ". " + ex.getFix());
			}
		}
		try {
			return this.routes.register(id, RouteArguments.of(settings, Spelling.FILTER),
					(expression != null) ? key : "", expression);
		}
		catch (IllegalArgumentException ex) {
			if (property == null) {
				throw ex;
			}
			// said as the surface's property says it, not as a gateway route's filter
			throw new IllegalArgumentException(property.substring(0, property.lastIndexOf('.') + 1) + "limit: "
					+ ex.getMessage().replace("route '" + id + "': ", "").replace("limiter.name ", "the limit "), ex);
		}
	}

	/**
	 * Prepare a call: its plan, condition and key (the key expression's, else the
	 * surface's caller).
	 * @param operation the call's operation
	 * @param targetClass the class of the object the method runs on, {@code null} for an
	 * operation registered by name
	 * @param arguments the method's arguments, as far as they are known
	 * @param request the surface's request
	 * @return the call, or {@code null} when its condition leaves it unlimited
	 */
	public Call prepare(AnnotatedOperation operation, Class<?> targetClass, Object[] arguments,
			SurfaceRequest request) {
		PreparedCall prepared = (operation.getMethod() != null)
				? this.pipeline.prepare(operation, targetClass, arguments, () -> request)
				: this.pipeline.prepareRoute(operation, null, request.caller(), request);
		return (prepared != null) ? new Call(prepared) : null;
	}

	/**
	 * Return the same call reserving a cost the surface computed for it, such as the
	 * points of a GraphQL document, instead of its operation's permits.
	 * @param call the prepared call
	 * @param permits what it reserves, at least one
	 * @return the call
	 */
	public Call costing(Call call, long permits) {
		return new Call(call.prepared.withPermits(permits));
	}

	/**
	 * Return the most one call can reserve under the limits that apply to it (its plan's
	 * and the operators' numbers): the smallest threshold of its enforced limits. A call
	 * that costs more can never pass.
	 * @param call the prepared call
	 * @return the largest cost, {@link Long#MAX_VALUE} when no limit is enforced
	 */
	public long largestCost(Call call) {
		return call.prepared.operation()
			.getEnforcedLimits()
			.stream()
			.mapToLong(Limit::threshold)
			.min()
			.orElse(Long.MAX_VALUE);
	}

	/**
	 * Decide a call without blocking, waiting under {@code maxWait} with the surface's
	 * own delay; the future completes on the store's threads.
	 * @param call the call
	 * @param delay how the surface waits without blocking, such as {@code Mono.delay}
	 * @return whether it may go on
	 */
	public CompletableFuture<Boolean> decideAsync(Call call, CallPipeline.Delay delay) {
		return this.pipeline.decideAsync(call.prepared, delay).thenApply((admission) -> {
			call.admission = admission;
			return admission.admitted();
		});
	}

	/**
	 * Settle what an admitted call turned out to cost, as a {@code charge} does: the
	 * difference from what it reserved taken or given back; never fails, never blocks.
	 * @param call the admitted call
	 * @param cost what it cost, in permits
	 * @return the decision after the charge, or {@code null} when nothing was charged
	 */
	public CompletableFuture<Decision> settleAsync(Call call, long cost) {
		Admission admission = call.admission;
		if (admission == null || !admission.admitted()) {
			return CompletableFuture.completedFuture(null);
		}
		return this.pipeline.settleAsync(admission, cost);
	}

	/**
	 * Settle what an admitted call turned out to cost on the calling thread, whose web
	 * request (Spring MVC's) then gets the headers of the charge; never fails.
	 * @param call the admitted call
	 * @param cost what it cost, in permits
	 * @return the decision after the charge, or {@code null} when nothing was charged
	 */
	public Decision settle(Call call, long cost) {
		Admission admission = call.admission;
		if (admission == null || !admission.admitted()) {
			return null;
		}
		return this.pipeline.settle(admission, cost);
	}

	/**
	 * Return whether an admitted call holds slots in flight, which its end gives back
	 * (blocking: a non-blocking surface ends it off its event loops).
	 * @param call the call
	 * @return whether it holds slots
	 */
	public boolean holdsSlots(Call call) {
		Admission admission = call.admission;
		return admission != null && admission.holdsSlots();
	}

	/**
	 * Decide a call on the calling thread, waiting under {@code maxWait}.
	 * @param call the call
	 * @return whether it may go on
	 * @throws InterruptedException if the thread is interrupted while it waits
	 */
	public boolean decide(Call call) throws InterruptedException {
		call.admission = this.pipeline.decide(call.prepared);
		return call.admission.admitted();
	}

	/**
	 * Return the decision of a decided call's enforced limits.
	 * @param call the call
	 * @return the decision, or {@code null} when only shadow limits decided
	 */
	public Decision decision(Call call) {
		return call.admission.enforced();
	}

	/**
	 * Return the exception that answers a refused call, as on every surface.
	 * @param call the refused call
	 * @return the exception ({@code RateLimitUnavailableException} for a fail-closed or
	 * capacity refusal)
	 */
	public RateLimitExceededException rejection(Call call) {
		return this.pipeline.rejection(call.admission);
	}

	/**
	 * End an admitted call, however it ended: its permits given back when it failed with
	 * one of its {@code refundOn} exceptions, its slots in flight given back; blocking.
	 * @param call the call
	 * @param failure what it failed with, or {@code null}
	 */
	public void end(Call call, Throwable failure) {
		Admission admission = call.admission;
		if (admission == null || !admission.admitted()) {
			return;
		}
		if (failure != null && call.prepared.operation().refundsOn(failure)) {
			this.pipeline.release(admission);
		}
		this.pipeline.finish(admission);
	}

	/** One call of a surface, from its preparation to its end. */
	public static final class Call {

		private final PreparedCall prepared;

		private volatile Admission admission;

		private Call(PreparedCall prepared) {
			this.prepared = prepared;
		}

	}

}
