package dev.limiter.graphql;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

import graphql.ExecutionInput;
import graphql.GraphQL;
import graphql.ParseAndValidate;
import graphql.execution.preparsed.PreparsedDocumentEntry;
import graphql.execution.preparsed.PreparsedDocumentProvider;
import graphql.language.Document;
import graphql.schema.GraphQLSchema;
import graphql.validation.ValidationError;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.graphql.execution.GraphQlSource;

/**
 * Hands graphql-java the document the budget's interceptor parsed to cost an operation,
 * so that a document is parsed once, not twice: graphql-java's
 * {@link PreparsedDocumentProvider}, composed with the application's own (a cache,
 * persisted queries), which keeps its turn and is given a function that validates the
 * parsed document instead of parsing the text again. An operation the interceptor did not
 * parse (no budget, a document it could not read) is parsed by graphql-java as before.
 * <p>
 * The validation is graphql-java's own ({@link ParseAndValidate#validate}), with the
 * rules an execution's context selects; the instrumentation's parse and validation
 * callbacks are not made for a document parsed here.
 */
final class ParsedDocuments implements PreparsedDocumentProvider {

	/** The key of the parsed document in an execution's {@code GraphQLContext}. */
	static final String KEY = ParsedDocuments.class.getName();

	private final PreparsedDocumentProvider application;

	private final GraphQLSchema schema;

	ParsedDocuments(PreparsedDocumentProvider application, GraphQLSchema schema) {
		this.application = application;
		this.schema = schema;
	}

	/**
	 * The document an interceptor parsed from an operation's text.
	 *
	 * @param text the text it parsed
	 * @param document what it parsed
	 */
	record Parsed(String text, Document document) {
	}

	@Override
	public CompletableFuture<PreparsedDocumentEntry> getDocumentAsync(ExecutionInput input,
			Function<ExecutionInput, PreparsedDocumentEntry> parseAndValidate) {
		Parsed parsed = input.getGraphQLContext().get(KEY);
		if (parsed == null || !parsed.text().equals(input.getQuery())) {
			return this.application.getDocumentAsync(input, parseAndValidate);
		}
		return this.application.getDocumentAsync(input, (given) -> validated(parsed.document(), given));
	}

	private PreparsedDocumentEntry validated(Document document, ExecutionInput input) {
		Predicate<Class<?>> rules = input.getGraphQLContext()
			.getOrDefault(ParseAndValidate.INTERNAL_VALIDATION_PREDICATE_HINT, (rule) -> true);
		List<ValidationError> errors = ParseAndValidate.validate(this.schema, document, rules, input.getLocale());
		return errors.isEmpty() ? new PreparsedDocumentEntry(document) : new PreparsedDocumentEntry(document, errors);
	}

	/**
	 * Wraps the application's {@link GraphQlSource}, so that its {@link GraphQL} takes
	 * the parsed documents, whatever provider the application configured.
	 */
	static final class SourcePostProcessor implements BeanPostProcessor {

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			return (bean instanceof GraphQlSource source && !(bean instanceof Source)) ? new Source(source) : bean;
		}

	}

	/** A source whose {@link GraphQL} is the application's, with the parsed documents. */
	static final class Source implements GraphQlSource {

		private final GraphQlSource source;

		private volatile Composed composed;

		Source(GraphQlSource source) {
			this.source = source;
		}

		@Override
		public GraphQL graphQl() {
			GraphQL current = this.source.graphQl();
			Composed composed = this.composed;
			if (composed == null || composed.original() != current) {
				// built again only when the application's source gives another GraphQL
				GraphQL parsedOnce = current.transform((builder) -> builder.preparsedDocumentProvider(
						new ParsedDocuments(current.getPreparsedDocumentProvider(), current.getGraphQLSchema())));
				composed = new Composed(current, parsedOnce);
				this.composed = composed;
			}
			return composed.parsedOnce();
		}

		@Override
		public GraphQLSchema schema() {
			return this.source.schema();
		}

		private record Composed(GraphQL original, GraphQL parsedOnce) {
		}

	}

}
