package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.RateLimitExceededException;
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
		RouteLimitSettings settings = new RouteLimitSettings();
		settings.setName(limitNames);
		return this.routes.register(id, RouteArguments.of(settings, Spelling.FILTER));
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
