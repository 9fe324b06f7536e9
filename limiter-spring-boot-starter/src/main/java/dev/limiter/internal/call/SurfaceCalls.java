package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import dev.limiter.Limit;
import dev.limiter.call.InvalidRateLimitException;
import dev.limiter.call.RouteLimitSettings;
import dev.limiter.internal.call.CallPreparation.PreparedCall;
import dev.limiter.internal.limits.InvalidLimitException;
import dev.limiter.internal.limits.LimitResolver;
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
		return register(id, limitNames, key, property, null);
	}

	/**
	 * Register an operation as {@link #register(String, List, String, String)} does,
	 * whose calls the surface settles after they ran (what a GraphQL operation's data or
	 * a chat call's usage cost): its limits must be ones that can take a charge, or the
	 * start stops naming them.
	 * @param id the operation's name
	 * @param limitNames the names of its limits
	 * @param key the key expression, or {@code null} for the caller
	 * @param property the property that gives the expression, as named in errors
	 * @param settledBy the property that makes the surface settle, as named in errors, or
	 * {@code null} when it does not settle
	 * @return the operation
	 * @throws IllegalArgumentException naming what to fix
	 */
	public AnnotatedOperation register(String id, List<String> limitNames, String key, String property,
			String settledBy) {
		RouteLimitSettings settings = new RouteLimitSettings();
		settings.setName(limitNames);
		String limitProperty = (property != null) ? property.substring(0, property.lastIndexOf('.') + 1) + "limit"
				: null;
		KeyExpression expression = null;
		if (key != null && !key.isBlank()) {
			try {
				expression = KeyExpression.parse(this.parser, this.beanResolver, property, null, key);
			}
			catch (InvalidRateLimitException ex) {
				throw new IllegalArgumentException(property + ": " + ex.getProblem() + ". " + ex.getFix());
			}
		}
		AnnotatedOperation operation;
		try {
			operation = this.routes.register(id, RouteArguments.of(settings, Spelling.SURFACE),
					(expression != null) ? key : "", expression);
		}
		catch (IllegalArgumentException ex) {
			if (limitProperty == null) {
				throw ex;
			}
			throw new IllegalArgumentException(limitProperty + ": " + ex.getMessage(), ex);
		}
		if (settledBy != null) {
			List<Limit> settled = new ArrayList<>(operation.getLimits());
			operation.getPlans().values().forEach((plan) -> settled.addAll(plan.getLimits()));
			try {
				LimitResolver.checkChargeable(settledBy, settled, Spelling.SURFACE);
			}
			catch (InvalidLimitException ex) {
				throw new IllegalArgumentException(ex.getProblem() + ": " + ex.getFix(), ex);
			}
		}
		return operation;
	}

	/**
	 * Prepare a call: its plan, condition and key (the key expression's, else the
	 * surface's caller).
	 * @param operation the call's operation
	 * @param targetClass the class of the object the method runs on, {@code null} for an
	 * operation registered by name
	 * @param arguments the method's arguments, as far as they are known
	 * @param request the surface's request
	 * @return the call's handle, or {@code null} when its condition leaves it unlimited
	 */
	public CallHandle prepare(AnnotatedOperation operation, Class<?> targetClass, Object[] arguments,
			SurfaceRequest request) {
		PreparedCall prepared = (operation.getMethod() != null)
				? this.pipeline.prepare(operation, targetClass, arguments, () -> request)
				: this.pipeline.prepareRoute(operation, null, null, request);
		return this.pipeline.handle(prepared);
	}

}
