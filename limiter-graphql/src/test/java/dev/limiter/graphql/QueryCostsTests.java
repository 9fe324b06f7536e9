package dev.limiter.graphql;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Stream;

import graphql.language.Document;
import graphql.parser.Parser;
import graphql.parser.ParserEnvironment;
import graphql.parser.ParserOptions;
import graphql.schema.FieldCoordinates;
import graphql.schema.GraphQLSchema;
import graphql.schema.idl.SchemaParser;
import graphql.schema.idl.TypeDefinitionRegistry;
import graphql.schema.idl.UnExecutableSchemaGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The cost of documents over the library's schema, each compared with its cost computed
 * by hand; fragments, aliases, variables, {@code @skip}/{@code @include}, connections and
 * the schema's directives; and hostile documents, whose costs saturate instead of
 * overflowing.
 */
class QueryCostsTests {

	static final GraphQLSchema schema = schema();

	private final QueryCosts costs = new QueryCosts(schema, null, 10, java.util.List.of("first", "last", "limit"));

	static Stream<Arguments> documents() {
		return Stream.of(
				// an object field: 1, its scalars 0
				Arguments.of("{ book(id: 1) { title } }", Map.of(), 1),
				Arguments.of("{ book(id: 1) { title author { name } } }", Map.of(), 2),
				// a connection: 1, its nodes sized by first
				Arguments.of("{ books(first: 10) { nodes { title } } }", Map.of(), 11),
				Arguments.of("{ books(first: 10) { edges { node { title } } } }", Map.of(), 21),
				Arguments.of("{ books(first: 10) { totalCount pageInfo { hasNextPage } } }", Map.of(), 2),
				// reviews: first defaults to 3 in the schema; Review weighs 2 (@cost on
				// the type)
				Arguments.of("{ books(first: 5) { nodes { title reviews { stars } } } }", Map.of(), 36),
				Arguments.of("{ books(first: 5) { nodes { reviews(first: 10) { text } } } }", Map.of(), 106),
				// a list: limit × (1 + selections); rating weighs 2 (@cost on the field)
				Arguments.of("{ authors(limit: 3) { name rating } }", Map.of(), 9),
				// no slicing argument given: the assumed size, 10
				Arguments.of("{ authors { name } }", Map.of(), 10),
				// @listSize(assumedSize: 5) on a union
				Arguments.of("{ search(text: \"x\") { ... on Book { title } ... on Author { name } } }", Map.of(), 5),
				Arguments.of("{ expensive }", Map.of(), 7),
				// an argument with @cost counts when it is given
				Arguments.of("{ book(id: 1) { reviews { text(long: true) } } }", Map.of(), 16),
				Arguments.of(
						"query { books(first: 2) { nodes { ...B } } } fragment B on Book { title author { name } }",
						Map.of(), 5),
				Arguments.of("{ books(first: 4) { ...C } } fragment C on BookConnection { nodes { title } }", Map.of(),
						5),
				Arguments.of("query Q($n: Int) { books(first: $n) { nodes { title } } }", Map.of("n", 20), 21),
				Arguments.of("query Q($n: Int = 7) { authors(limit: $n) { name } }", Map.of(), 7),
				Arguments.of("query Q($s: Boolean!) { book(id: 1) { title author @skip(if: $s) { name } } }",
						Map.of("s", true), 1),
				Arguments.of("{ book(id: 1) { author @include(if: false) { name } } expensive }", Map.of(), 8),
				Arguments.of("{ a: book(id: 1) { title } b: book(id: 2) { title } c: book(id: 3) { author { name } } }",
						Map.of(), 4),
				Arguments.of("mutation { addReview(bookId: 1, stars: 5) { id } }", Map.of(), 2),
				Arguments.of("subscription { reviewAdded(bookId: 1) { stars } }", Map.of(), 2),
				// a connection inside a list
				Arguments.of("{ authors(limit: 2) { books(first: 3) { nodes { title } } } }", Map.of(), 10),
				Arguments.of("{ __typename book(id: 1) { __typename } }", Map.of(), 1));
	}

	@ParameterizedTest
	@MethodSource("documents")
	void theCostOfEachDocumentIsTheOneComputedByHand(String document, Map<String, Object> variables, long expected) {
		assertThat(estimate(document, variables)).isEqualTo(expected);
	}

	@Test
	void tenThousandAliasesCostWhatTheyAskFor() {
		StringBuilder document = new StringBuilder("{");
		for (int i = 0; i < 10_000; i++) {
			document.append(" a").append(i).append(": books(first: 100) { nodes { title } }");
		}
		assertThat(estimate(document.append(" }").toString(), Map.of())).isEqualTo(10_000L * 101);
	}

	@Test
	void twoHundredLevelsOfNestingSaturateInsteadOfOverflowing() {
		StringBuilder document = new StringBuilder("{ authors(limit: 100) {");
		for (int i = 0; i < 200; i++) {
			document.append(" books(first: 100) { nodes { author {");
		}
		document.append(" name ");
		document.append(" } } }".repeat(200)).append(" } }");
		assertThat(estimate(document.toString(), Map.of())).isEqualTo((long) QueryCosts.MAX);
	}

	@Test
	void theLargestIntegerAsFirstCostsThatMany() {
		assertThat(estimate("{ books(first: 2147483647) { nodes { title } } }", Map.of())).isEqualTo(2147483648L);
		assertThat(estimate("query Q($n: Int) { books(first: $n) { nodes { title } } }",
				Map.of("n", new java.math.BigInteger("99999999999999999999999"))))
			.isEqualTo((long) QueryCosts.MAX);
		assertThat(estimate("{ books(first: -5) { nodes { title } } }", Map.of())).as("a negative size is none")
			.isEqualTo(1);
	}

	@Test
	void aFragmentBombCostsWhatItAsksForInOneWalkOfEachFragment() {
		// F0 spreads F1 twice, F1 spreads F2 twice ... : 2^60 authors asked for, more
		// than the largest cost: saturated, after one walk of each fragment
		StringBuilder document = new StringBuilder("{ book(id: 1) { ...F0 } }");
		for (int i = 0; i < 60; i++) {
			document.append(" fragment F")
				.append(i)
				.append(" on Book { a: author { books(first: 1) { nodes { ...F")
				.append(i + 1)
				.append(" } } } b: author { books(first: 1) { nodes { ...F")
				.append(i + 1)
				.append(" } } } }");
		}
		document.append(" fragment F60 on Book { title }");
		assertThat(estimate(document.toString(), Map.of())).isEqualTo((long) QueryCosts.MAX);
	}

	@Test
	void aCycleOfFragmentsCostsNothingMoreThanItsFirstWalk() {
		assertThat(estimate(
				"{ book(id: 1) { ...A } } fragment A on Book { author { books(first: 1) { nodes { ...A } } } }",
				Map.of()))
			.isEqualTo(1 + 1 + 1 + 1);
	}

	@Test
	void aFieldCostBeanIsAskedFirst() {
		GraphQlFieldCost bean = new GraphQlFieldCost() {

			@Override
			public Double weight(FieldCoordinates field, Map<String, Object> arguments) {
				return field.equals(FieldCoordinates.coordinates("Query", "book")) ? 50.0 : null;
			}

			@Override
			public Long listSize(FieldCoordinates field, Map<String, Object> arguments) {
				return field.equals(FieldCoordinates.coordinates("Query", "authors")) ? 4L : null;
			}

		};
		QueryCosts costs = new QueryCosts(schema, bean, 10, java.util.List.of("first"));
		Document document = parse("{ book(id: 1) { title } authors(limit: 100) { name } }");
		assertThat(costs.estimate(document, QueryCosts.operation(document, null), Map.of())).isEqualTo(50 + 4);
	}

	@Test
	void theActualCostCountsTheListsThatCameBack() {
		Document document = parse("{ books(first: 100) { nodes { title reviews { stars } } } }");
		Map<String, Object> data = Map.of("books",
				Map.of("nodes",
						java.util.List.of(Map.of("title", "a", "reviews", java.util.List.of(Map.of("stars", 5))),
								Map.of("title", "b", "reviews", java.util.List.of()))));
		// books 1 + two nodes (1 each) + one review (2)
		assertThat(this.costs.actual(document, QueryCosts.operation(document, null), Map.of(), data)).isEqualTo(5);
	}

	@Test
	void aWeightThatIsNotANumberStopsTheStartNamingTheField() {
		TypeDefinitionRegistry registry = new SchemaParser().parse("type Query { a: Int @cost(weight: \"heavy\") }");
		new CostDirectives().configure(registry);
		GraphQLSchema broken = UnExecutableSchemaGenerator.makeUnExecutableSchema(registry);
		assertThatIllegalStateException()
			.isThrownBy(() -> new QueryCosts(broken, null, 10, java.util.List.of()).check())
			.withMessageContaining("@cost(weight: \"heavy\") on a")
			.withMessageContaining("such as @cost(weight: \"2\")");
	}

	private long estimate(String source, Map<String, Object> variables) {
		Document document = parse(source);
		return (long) Math.ceil(this.costs.estimate(document, QueryCosts.operation(document, null), variables));
	}

	static Document parse(String source) {
		// past graphql-java's default token limits, which refuse the largest hostile
		// documents before any cost is computed
		return Parser.parse(ParserEnvironment.newParserEnvironment()
			.document(source)
			.parserOptions(ParserOptions.newParserOptions()
				.maxTokens(Integer.MAX_VALUE)
				.maxWhitespaceTokens(Integer.MAX_VALUE)
				.maxRuleDepth(Integer.MAX_VALUE)
				.maxCharacters(Integer.MAX_VALUE)
				.build())
			.build());
	}

	static GraphQLSchema schema() {
		try (InputStream in = QueryCostsTests.class.getResourceAsStream("/graphql/library.graphqls")) {
			TypeDefinitionRegistry registry = new SchemaParser()
				.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
			new CostDirectives().configure(registry);
			return UnExecutableSchemaGenerator.makeUnExecutableSchema(registry);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
