package dev.limiter.graphql;

import java.util.Map;

import graphql.schema.FieldCoordinates;

/**
 * The cost of fields that the schema's {@code @cost} and {@code @listSize} directives do
 * not say, such as those of a schema built in code: a bean of this type is asked first,
 * for every field of an operation, and a {@code null} answer leaves the field to the
 * directives and the defaults.
 */
public interface GraphQlFieldCost {

	/**
	 * Return the points one execution of a field costs, its selections aside (what
	 * {@code @cost(weight:)} says on a field).
	 * @param field the field, such as {@code Query.books}
	 * @param arguments the arguments written in the operation, variables replaced by
	 * their values
	 * @return the weight, or {@code null} for the directive's or the default (1 for a
	 * field of an object type, 0 for a scalar or an enum)
	 */
	default Double weight(FieldCoordinates field, Map<String, Object> arguments) {
		return null;
	}

	/**
	 * Return how many items a field that returns a list (or a connection) is expected to
	 * return (what {@code @listSize} says on a field).
	 * @param field the field, such as {@code Author.books}
	 * @param arguments the arguments written in the operation, variables replaced by
	 * their values
	 * @return the size, or {@code null} for the slicing argument's, the directive's or
	 * the assumed size ({@code limiter.graphql.assumed-list-size})
	 */
	default Long listSize(FieldCoordinates field, Map<String, Object> arguments) {
		return null;
	}

}
