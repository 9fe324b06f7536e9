package dev.limiter.graphql;

import graphql.language.DirectiveDefinition;
import graphql.schema.idl.SchemaParser;
import graphql.schema.idl.TypeDefinitionRegistry;
import org.springframework.graphql.execution.TypeDefinitionConfigurer;

/**
 * Declares the cost directives of IBM's GraphQL Cost Directives specification in the
 * schema, unless the schema declares them itself: {@code @cost(weight:)} and
 * {@code @listSize(assumedSize:, slicingArguments:, sizedFields:)}.
 */
final class CostDirectives implements TypeDefinitionConfigurer {

	static final String SDL = """
			directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION \
			| INPUT_FIELD_DEFINITION | OBJECT | SCALAR
			directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], \
			requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
			""";

	@Override
	public void configure(TypeDefinitionRegistry registry) {
		TypeDefinitionRegistry declared = new SchemaParser().parse(SDL);
		for (DirectiveDefinition directive : declared.getDirectiveDefinitions().values()) {
			if (registry.getDirectiveDefinition(directive.getName()).isEmpty()) {
				registry.add(directive);
			}
		}
	}

}
