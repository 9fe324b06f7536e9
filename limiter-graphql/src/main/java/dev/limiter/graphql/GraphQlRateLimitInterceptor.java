package dev.limiter.graphql;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import graphql.ErrorType;
import graphql.ExecutionResult;
import graphql.GraphQLError;
import graphql.language.Document;
import graphql.language.OperationDefinition;
import graphql.parser.Parser;
import graphql.parser.ParserEnvironment;
import graphql.parser.ParserOptions;
import graphql.schema.GraphQLSchema;
import org.reactivestreams.Publisher;
import org.springframework.graphql.server.WebGraphQlInterceptor;
import org.springframework.graphql.server.WebGraphQlRequest;
import org.springframework.graphql.server.WebGraphQlResponse;
import org.springframework.graphql.server.WebSocketGraphQlRequest;
import org.springframework.graphql.execution.SubscriptionPublisherException;
import org.springframework.http.HttpHeaders;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.limiter.Decision;
import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.CallHandle;
import dev.limiter.internal.call.SurfaceCalls;
import dev.limiter.internal.web.RateLimitHeaders;

/**
 * Keeps a budget of points per caller for the operations of Spring for GraphQL, through
 * Limiter's decision pipeline: each operation's cost is computed from its document and
 * variables before any resolver runs and reserved under the budget's limit
 * ({@code limiter.graphql.limit}); an operation the budget cannot hold is refused without
 * running, over HTTP with 429 and {@code Retry-After}, over WebSocket with an error for
 * that operation only; what it really cost may be settled after it ran
 * ({@code limiter.graphql.settle}). Every response's {@code extensions.rateLimit} tells
 * the caller the cost and what is left.
 */
final class GraphQlRateLimitInterceptor implements WebGraphQlInterceptor {

	/**
	 * The name under which the budget is an operation of the {@code ratelimits} endpoint.
	 */
	static final String OPERATION = "graphql";

	private final SurfaceCalls calls;

	private final GraphQlAnswers answers;

	private final Supplier<GraphQLSchema> schema;

	private final GraphQlFieldCost fieldCost;

	private final LimiterGraphQlProperties properties;

	private final GraphQlPoints points;

	private final boolean blocking;

	private volatile AnnotatedOperation operation;

	private volatile QueryCosts costs;

	GraphQlRateLimitInterceptor(SurfaceCalls calls, RateLimitHeaders headers, Supplier<GraphQLSchema> schema,
			GraphQlFieldCost fieldCost, LimiterGraphQlProperties properties, GraphQlPoints points, boolean blocking) {
		this.calls = calls;
		this.blocking = blocking;
		this.answers = new GraphQlAnswers(headers);
		this.schema = schema;
		this.fieldCost = fieldCost;
		this.properties = properties;
		this.points = points;
	}

	/**
	 * Register the budget and read the schema's cost directives; once, when the
	 * application has started its beans.
	 * @throws IllegalArgumentException naming what to fix
	 */
	void start() {
		if (this.properties.getAssumedListSize() < 0) {
			throw new IllegalArgumentException(
					"limiter.graphql.assumed-list-size is " + this.properties.getAssumedListSize()
							+ ", not a number of items: set it to how many items a list without a slicing argument is "
							+ "assumed to return, such as 10");
		}
		this.operation = this.calls.register(OPERATION, List.of(this.properties.getLimit()), this.properties.getKey(),
				"limiter.graphql.key", this.properties.isSettle() ? "limiter.graphql.settle: true" : null);
		QueryCosts costs = new QueryCosts(this.schema.get(), this.fieldCost, this.properties.getAssumedListSize(),
				this.properties.getSlicingArguments());
		costs.check();
		this.costs = costs;
	}

	@Override
	public Mono<WebGraphQlResponse> intercept(WebGraphQlRequest request, Chain chain) {
		QueryCosts costs = this.costs;
		if (costs == null) {
			return chain.next(request);
		}
		Document document;
		try {
			// graphql-java's own limits on the document, so that what it refuses to parse
			// is refused by it, without a charge
			document = Parser.parse(ParserEnvironment.newParserEnvironment()
				.document(request.getDocument())
				.parserOptions(ParserOptions.getDefaultOperationParserOptions())
				.build());
		}
		catch (RuntimeException ex) {
			// InvalidSyntaxException, and the parser's own limits: graphql-java answers
			// them
			return chain.next(request);
		}
		// graphql-java takes this document instead of parsing the text again
		ParsedDocuments.Parsed parsed = new ParsedDocuments.Parsed(request.getDocument(), document);
		request.configureExecutionInput((input, builder) -> {
			input.getGraphQLContext().put(ParsedDocuments.KEY, parsed);
			return input;
		});
		OperationDefinition operationDefinition = QueryCosts.operation(document, request.getOperationName());
		if (operationDefinition == null) {
			return chain.next(request);
		}
		long cost = Math.max(1,
				(long) Math.ceil(costs.estimate(document, operationDefinition, request.getVariables())));
		String name = operationDefinition.getName();
		return GraphQlCaller.of(request).flatMap((caller) -> {
			CallHandle call = this.calls.prepare(this.operation, null, new Object[0],
					new GraphQlCaller(caller, request));
			if (call == null) {
				return chain.next(request);
			}
			call.costing(cost, "points", "ask for fewer items (smaller first or last) or fewer fields");
			return decide(call)
				.flatMap((admitted) -> admitted ? execute(request, chain, call, document, operationDefinition, cost)
						: Mono.just(refusal(request, call, operationDefinition, cost)));
		});
	}

	/**
	 * Decide on the servlet container's thread, where Spring MVC runs the operation after
	 * it; on a reactive server without blocking, the operation going on off the store's
	 * threads.
	 */
	private Mono<Boolean> decide(CallHandle call) {
		if (this.blocking) {
			return Mono.fromCallable(call::decide);
		}
		return Mono.fromFuture(() -> call.decideAsync((duration) -> Mono.delay(duration).toFuture()))
			.publishOn(Schedulers.parallel());
	}

	private WebGraphQlResponse refusal(WebGraphQlRequest request, CallHandle call,
			OperationDefinition operationDefinition, long cost) {
		this.points.refused(operationDefinition.getName(), cost);
		HttpHeaders headers = new HttpHeaders();
		GraphQLError error = this.answers.refusal(call.rejection(), cost, headers);
		WebGraphQlResponse response;
		if (request instanceof WebSocketGraphQlRequest
				&& operationDefinition.getOperation() == OperationDefinition.Operation.SUBSCRIPTION) {
			// the protocol's error message for this subscription only; the connection
			// stays
			Publisher<ExecutionResult> refused = Flux.error(new SubscriptionPublisherException(List.of(error), null));
			response = new WebGraphQlResponse(new org.springframework.graphql.support.DefaultExecutionGraphQlResponse(
					request.toExecutionInput(), ExecutionResult.newExecutionResult().data(refused).build()));
		}
		else {
			response = GraphQlAnswers.refused(request.toExecutionInput(), List.of(error));
			Object budget = error.getExtensions().get(GraphQlAnswers.EXTENSION);
			if (budget instanceof Map<?, ?> told) {
				// every response tells the budget, a refusal's as its error does
				WebGraphQlResponse refused = response;
				response = refused.transform((builder) -> builder.extensions(extensions(refused, castBudget(told))));
			}
		}
		response.getResponseHeaders().putAll(headers);
		return response;
	}

	private Mono<WebGraphQlResponse> execute(WebGraphQlRequest request, Chain chain, CallHandle call, Document document,
			OperationDefinition operationDefinition, long cost) {
		Decision decision = call.decision();
		Mono<WebGraphQlResponse> executed = chain.next(request).flatMap((response) -> {
			if (decision == null || response.getExecutionResult().getData() instanceof Publisher) {
				this.points.charged(operationDefinition.getName(), cost);
				admitted(decision, response);
				return Mono.just(response);
			}
			long settled = settled(response, document, operationDefinition, request, cost);
			this.points.charged(operationDefinition.getName(), settled);
			return settle(call, cost, settled).defaultIfEmpty(decision).map((charged) -> {
				admitted(charged, response);
				long remaining = (charged != decision) ? charged.remaining()
						: Math.max(0, decision.remaining() - (settled - cost));
				return response.transform((builder) -> builder
					.extensions(extensions(response, GraphQlAnswers.budget(charged, settled, remaining))));
			});
		});
		if (!call.holdsSlots()) {
			return executed;
		}
		// a budget of points in flight: given back when the operation ends, off the event
		// loop
		Mono<Void> end = Mono.fromFuture(() -> call.endAsync(null));
		return Mono.usingWhen(Mono.just(call), (held) -> executed, (held) -> end, (held, failure) -> end,
				(held) -> end);
	}

	/**
	 * Charge the difference between what an operation reserved and what it cost: on the
	 * servlet container's thread (whose response then gets the charge's headers), else
	 * without blocking.
	 * @return the decision after the charge, empty when nothing was charged
	 */
	private Mono<Decision> settle(CallHandle call, long cost, long settled) {
		if (settled == cost) {
			return Mono.empty();
		}
		if (this.blocking) {
			return Mono.justOrEmpty(call.settle(settled));
		}
		return Mono.fromFuture(() -> call.settleAsync(settled)).publishOn(Schedulers.parallel());
	}

	/**
	 * Write an admitted operation's quota into its HTTP response; on Spring MVC the
	 * starter's listener has written it into the servlet response already.
	 */
	private void admitted(Decision decision, WebGraphQlResponse response) {
		if (!this.blocking) {
			this.answers.admitted(decision, response.getResponseHeaders());
		}
	}

	/**
	 * What an executed operation costs: its reservation, or with settlement on, what its
	 * data cost; nothing when the document was refused as invalid before it ran.
	 */
	private long settled(WebGraphQlResponse response, Document document, OperationDefinition operationDefinition,
			WebGraphQlRequest request, long cost) {
		ExecutionResult result = response.getExecutionResult();
		if (!result.isDataPresent() && !result.getErrors().isEmpty()
				&& result.getErrors()
					.stream()
					.allMatch((error) -> error.getErrorType() == ErrorType.ValidationError
							|| error.getErrorType() == ErrorType.InvalidSyntax)) {
			return 0;
		}
		if (!this.properties.isSettle()) {
			return cost;
		}
		Object data = result.getData();
		@SuppressWarnings("unchecked")
		Map<String, Object> values = (data instanceof Map<?, ?> map) ? (Map<String, Object>) map : null;
		// never below the rules' minimum of an operation, as its reservation is not: a
		// document of scalars only would otherwise settle at 0 and cost nothing
		return Math.max(1,
				(long) Math.ceil(this.costs.actual(document, operationDefinition, request.getVariables(), values)));
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> castBudget(Map<?, ?> budget) {
		return (Map<String, Object>) budget;
	}

	private static Map<Object, Object> extensions(WebGraphQlResponse response, Map<String, Object> budget) {
		Map<Object, Object> extensions = new LinkedHashMap<>(response.getExtensions());
		extensions.put(GraphQlAnswers.EXTENSION, budget);
		return extensions;
	}

}
