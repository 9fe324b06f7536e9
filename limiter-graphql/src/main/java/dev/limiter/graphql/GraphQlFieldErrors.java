package dev.limiter.graphql;

import graphql.GraphQLError;
import graphql.GraphqlErrorBuilder;
import graphql.schema.DataFetchingEnvironment;
import org.springframework.graphql.execution.DataFetcherExceptionResolverAdapter;

import dev.limiter.RateLimitExceededException;

/**
 * Answers the refusal of a {@code @RateLimit} method behind a field (a
 * {@code @QueryMapping}, {@code @MutationMapping} or {@code @SchemaMapping}) as a GraphQL
 * error for that field, classified as the budget's refusals are, instead of an internal
 * error; the rest of the operation goes on.
 */
final class GraphQlFieldErrors extends DataFetcherExceptionResolverAdapter {

	@Override
	protected GraphQLError resolveToSingleError(Throwable ex, DataFetchingEnvironment environment) {
		if (!(ex instanceof RateLimitExceededException rejection)) {
			return null;
		}
		return GraphQlAnswers.error(GraphqlErrorBuilder.newError(environment), rejection, null);
	}

}
