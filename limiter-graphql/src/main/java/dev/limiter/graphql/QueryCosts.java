package dev.limiter.graphql;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import graphql.language.Argument;
import graphql.language.ArrayValue;
import graphql.language.BooleanValue;
import graphql.language.Directive;
import graphql.language.DirectivesContainer;
import graphql.language.Document;
import graphql.language.EnumValue;
import graphql.language.Field;
import graphql.language.FloatValue;
import graphql.language.FragmentDefinition;
import graphql.language.FragmentSpread;
import graphql.language.InlineFragment;
import graphql.language.IntValue;
import graphql.language.ObjectField;
import graphql.language.ObjectValue;
import graphql.language.OperationDefinition;
import graphql.language.Selection;
import graphql.language.SelectionSet;
import graphql.language.StringValue;
import graphql.language.Value;
import graphql.language.VariableDefinition;
import graphql.language.VariableReference;
import graphql.schema.FieldCoordinates;
import graphql.schema.GraphQLAppliedDirective;
import graphql.schema.GraphQLAppliedDirectiveArgument;
import graphql.schema.GraphQLArgument;
import graphql.schema.GraphQLDirectiveContainer;
import graphql.schema.GraphQLFieldDefinition;
import graphql.schema.GraphQLFieldsContainer;
import graphql.schema.GraphQLList;
import graphql.schema.GraphQLModifiedType;
import graphql.schema.GraphQLNamedType;
import graphql.schema.GraphQLObjectType;
import graphql.schema.GraphQLOutputType;
import graphql.schema.GraphQLSchema;
import graphql.schema.GraphQLType;
import graphql.schema.GraphQLTypeUtil;

/**
 * The points an operation costs, by the convention of IBM's GraphQL Cost Directives and
 * Apollo's demand control: a field of an object type costs 1 plus its selections, a field
 * that returns a list costs its size times that, scalars and enums cost 0, the root costs
 * nothing; {@code @cost} and {@code @listSize} in the schema, and a
 * {@link GraphQlFieldCost} bean, say otherwise. Estimated from the document and its
 * variables before execution, and counted from the data after it.
 * <p>
 * The work is bounded by the document: each fragment is costed once per context, and
 * numbers saturate at {@link #MAX} instead of overflowing.
 */
final class QueryCosts {

	/** The largest cost: more than any budget can hold. */
	static final double MAX = 1e15;

	private static final String COST = "cost";

	private static final String LIST_SIZE = "listSize";

	private final GraphQLSchema schema;

	private final GraphQlFieldCost bean;

	private final long assumedListSize;

	private final List<String> slicingArguments;

	// What the schema says of each field, read once: the schema does not change.
	private final Map<GraphQLFieldDefinition, FieldRules> rules = new ConcurrentHashMap<>();

	QueryCosts(GraphQLSchema schema, GraphQlFieldCost bean, long assumedListSize, List<String> slicingArguments) {
		this.schema = schema;
		this.bean = bean;
		this.assumedListSize = assumedListSize;
		this.slicingArguments = List.copyOf(slicingArguments);
	}

	/**
	 * Return the operation of a document that a request executes.
	 * @param document the document
	 * @param operationName the name the request gives, or {@code null}
	 * @return the operation, or {@code null} when none matches (graphql-java then refuses
	 * the request itself)
	 */
	static OperationDefinition operation(Document document, String operationName) {
		OperationDefinition found = null;
		for (OperationDefinition operation : document.getDefinitionsOfType(OperationDefinition.class)) {
			if (operationName == null || operationName.isEmpty()) {
				if (found != null) {
					return null;
				}
				found = operation;
			}
			else if (operationName.equals(operation.getName())) {
				return operation;
			}
		}
		return found;
	}

	/**
	 * Return what an operation is expected to cost, before it runs.
	 * @param document the parsed document
	 * @param operation its operation that runs
	 * @param variables the request's variables
	 * @return the points, at most {@link #MAX}
	 */
	double estimate(Document document, OperationDefinition operation, Map<String, Object> variables) {
		Walk walk = new Walk(document, operation, variables);
		GraphQLObjectType root = root(operation);
		return (root != null) ? walk.estimate(operation.getSelectionSet(), root, null) : 0;
	}

	/**
	 * Return what an executed operation cost, from the data it returned: lists counted as
	 * long as they came back.
	 * @param document the parsed document
	 * @param operation its operation that ran
	 * @param variables the request's variables
	 * @param data the response's data
	 * @return the points, at most {@link #MAX}
	 */
	double actual(Document document, OperationDefinition operation, Map<String, Object> variables,
			Map<String, Object> data) {
		Walk walk = new Walk(document, operation, variables);
		GraphQLObjectType root = root(operation);
		return (root != null && data != null) ? walk.actual(operation.getSelectionSet(), root, data) : 0;
	}

	private GraphQLObjectType root(OperationDefinition operation) {
		return switch (operation.getOperation()) {
			case MUTATION -> this.schema.getMutationType();
			case SUBSCRIPTION -> this.schema.getSubscriptionType();
			default -> this.schema.getQueryType();
		};
	}

	/** Points that saturate instead of overflowing. */
	private static double add(double a, double b) {
		return Math.min(MAX, a + b);
	}

	private static double times(double size, double each) {
		return (size == 0 || each == 0) ? 0 : Math.min(MAX, size * each);
	}

	private FieldRules rules(GraphQLFieldDefinition definition) {
		return this.rules.computeIfAbsent(definition, this::readRules);
	}

	private FieldRules readRules(GraphQLFieldDefinition definition) {
		boolean list = false;
		GraphQLType type = definition.getType();
		while (type instanceof GraphQLModifiedType modified) {
			list |= modified instanceof GraphQLList;
			type = modified.getWrappedType();
		}
		boolean leaf = GraphQLTypeUtil.isLeaf(type);
		Double weight = weight(definition);
		if (weight == null && type instanceof GraphQLDirectiveContainer container) {
			weight = weight(container);
		}
		Map<String, Double> argumentWeights = new HashMap<>();
		for (GraphQLArgument argument : definition.getArguments()) {
			Double argumentWeight = weight(argument);
			if (argumentWeight != null) {
				argumentWeights.put(argument.getName(), argumentWeight);
			}
		}
		GraphQLAppliedDirective listSize = definition.getAppliedDirective(LIST_SIZE);
		Long assumed = null;
		List<String> slicing = null;
		List<String> sized = null;
		if (listSize != null) {
			assumed = number(argument(listSize, "assumedSize"));
			slicing = strings(argument(listSize, "slicingArguments"));
			sized = strings(argument(listSize, "sizedFields"));
		}
		if (slicing == null) {
			slicing = new ArrayList<>();
			for (String name : this.slicingArguments) {
				if (definition.getArgument(name) != null) {
					slicing.add(name);
				}
			}
		}
		return new FieldRules(list, leaf, (type instanceof GraphQLOutputType output) ? output : null,
				(weight != null) ? weight : (leaf ? 0 : 1), Map.copyOf(argumentWeights), assumed, List.copyOf(slicing),
				(sized != null) ? Set.copyOf(sized) : null);
	}

	private static Object argument(GraphQLAppliedDirective directive, String name) {
		GraphQLAppliedDirectiveArgument argument = directive.getArgument(name);
		return (argument != null) ? argument.getValue() : null;
	}

	private static Double weight(GraphQLDirectiveContainer container) {
		GraphQLAppliedDirective cost = container.getAppliedDirective(COST);
		if (cost == null) {
			return null;
		}
		Object weight = argument(cost, "weight");
		try {
			double parsed = new BigDecimal(String.valueOf(weight)).doubleValue();
			return Math.max(0, Math.min(MAX, parsed));
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException("@cost(weight: \"" + weight + "\") on " + describe(container)
					+ " is not a number: write the weight as a number in a string, such as @cost(weight: \"2\")");
		}
	}

	private static String describe(GraphQLDirectiveContainer container) {
		return (container instanceof GraphQLNamedType named) ? named.getName() : container.getName();
	}

	private static Long number(Object value) {
		return (value instanceof Number number) ? number.longValue() : null;
	}

	@SuppressWarnings("unchecked")
	private static List<String> strings(Object value) {
		return (value instanceof List<?> list) ? (List<String>) list : null;
	}

	/**
	 * Check the schema's directives once, at startup: a weight that is not a number stops
	 * the start naming the field or type.
	 */
	void check() {
		for (GraphQLNamedType type : this.schema.getAllTypesAsList()) {
			if (type.getName().startsWith("__")) {
				continue;
			}
			if (type instanceof GraphQLDirectiveContainer container) {
				weight(container);
			}
			if (type instanceof GraphQLFieldsContainer fields) {
				for (GraphQLFieldDefinition field : fields.getFieldDefinitions()) {
					rules(field);
				}
			}
		}
	}

	/** What the schema says of one field. */
	private record FieldRules(boolean list, boolean leaf, GraphQLOutputType type, double weight,
			Map<String, Double> argumentWeights, Long assumedSize, List<String> slicingArguments,
			Set<String> sizedFields) {
	}

	/**
	 * The size a field's slicing argument gave to the lists under it (a connection's
	 * {@code edges} and {@code nodes}).
	 */
	private record Sized(long size, Set<String> fields) {

		boolean sizes(String field, FieldRules rules) {
			return rules.list() && (this.fields == null || this.fields.contains(field));
		}

	}

	/** One operation's walk: its fragments and variables. */
	private final class Walk {

		private final Map<String, FragmentDefinition> fragments = new HashMap<>();

		private final Map<String, Object> variables;

		private final Map<FragmentKey, Double> fragmentCosts = new HashMap<>();

		private final Set<String> expanding = new java.util.HashSet<>();

		Walk(Document document, OperationDefinition operation, Map<String, Object> variables) {
			for (FragmentDefinition fragment : document.getDefinitionsOfType(FragmentDefinition.class)) {
				this.fragments.putIfAbsent(fragment.getName(), fragment);
			}
			Map<String, Object> values = new LinkedHashMap<>((variables != null) ? variables : Map.of());
			for (VariableDefinition definition : operation.getVariableDefinitions()) {
				if (!values.containsKey(definition.getName()) && definition.getDefaultValue() != null) {
					values.put(definition.getName(), value(definition.getDefaultValue(), Map.of()));
				}
			}
			this.variables = values;
		}

		double estimate(SelectionSet selections, GraphQLType parent, Sized sized) {
			return sum(selections, parent, new Selections() {

				@Override
				public double field(Field field, GraphQLType type) {
					return estimate(field, type, sized);
				}

				@Override
				public double nested(SelectionSet nested, GraphQLType type) {
					return estimate(nested, type, sized);
				}

				@Override
				public double spread(String name) {
					return fragment(name, sized);
				}

			});
		}

		/**
		 * Sum what each selection that runs costs, fields, inline fragments and spreads
		 * alike, skipping those {@code @skip} or {@code @include} leave out.
		 */
		private double sum(SelectionSet selections, GraphQLType parent, Selections each) {
			if (selections == null) {
				return 0;
			}
			double cost = 0;
			for (Selection<?> selection : selections.getSelections()) {
				if (selection instanceof DirectivesContainer<?> directed && skipped(directed)) {
					continue;
				}
				if (selection instanceof Field field) {
					cost = add(cost, each.field(field, parent));
				}
				else if (selection instanceof InlineFragment inline) {
					cost = add(cost, each.nested(inline.getSelectionSet(), conditionType(inline, parent)));
				}
				else if (selection instanceof FragmentSpread spread) {
					cost = add(cost, each.spread(spread.getName()));
				}
			}
			return cost;
		}

		private double fragment(String name, Sized sized) {
			FragmentDefinition fragment = this.fragments.get(name);
			if (fragment == null || !this.expanding.add(name)) {
				// unknown, or a cycle: the validation refuses the document before it runs
				return 0;
			}
			try {
				FragmentKey key = new FragmentKey(name, sized);
				Double known = this.fragmentCosts.get(key);
				if (known == null) {
					GraphQLType type = QueryCosts.this.schema.getType(fragment.getTypeCondition().getName());
					known = estimate(fragment.getSelectionSet(), type, sized);
					this.fragmentCosts.put(key, known);
				}
				return known;
			}
			finally {
				this.expanding.remove(name);
			}
		}

		private double estimate(Field field, GraphQLType parent, Sized sized) {
			GraphQLFieldDefinition definition = definition(parent, field);
			if (definition == null) {
				return 0;
			}
			FieldRules rules = rules(definition);
			Map<String, Object> arguments = (QueryCosts.this.bean != null) ? arguments(field) : null;
			double weight = weight(parent, definition, rules, arguments);
			double arguments2 = argumentWeights(field, rules);
			Long slicedSize = slicedSize(field, parent, definition, rules, arguments);
			Sized childSized = null;
			if (!rules.list() && !rules.leaf() && slicedSize != null) {
				childSized = new Sized(slicedSize, rules.sizedFields());
			}
			double children = rules.leaf() ? 0 : estimate(field.getSelectionSet(), rules.type(), childSized);
			double each = add(weight, children);
			if (!rules.list()) {
				return add(each, arguments2);
			}
			long size;
			if (sized != null && sized.sizes(field.getName(), rules) && slicedSize == null) {
				size = sized.size();
			}
			else {
				size = (slicedSize != null) ? slicedSize
						: (rules.assumedSize() != null) ? rules.assumedSize() : QueryCosts.this.assumedListSize;
			}
			return add(times(Math.max(0, size), each), arguments2);
		}

		double actual(SelectionSet selections, GraphQLType parent, Map<?, ?> data) {
			if (data == null) {
				return 0;
			}
			return sum(selections, parent, new Selections() {

				@Override
				public double field(Field field, GraphQLType type) {
					return actual(field, type, data);
				}

				@Override
				public double nested(SelectionSet nested, GraphQLType type) {
					return actual(nested, type, data);
				}

				@Override
				public double spread(String name) {
					FragmentDefinition fragment = Walk.this.fragments.get(name);
					if (fragment == null || !Walk.this.expanding.add(name)) {
						return 0;
					}
					try {
						return actual(fragment.getSelectionSet(),
								QueryCosts.this.schema.getType(fragment.getTypeCondition().getName()), data);
					}
					finally {
						Walk.this.expanding.remove(name);
					}
				}

			});
		}

		private double actual(Field field, GraphQLType parent, Map<?, ?> data) {
			String key = (field.getAlias() != null) ? field.getAlias() : field.getName();
			GraphQLFieldDefinition definition = definition(parent, field);
			if (definition == null || !data.containsKey(key)) {
				// another branch of a union, or a field that did not run
				return 0;
			}
			FieldRules rules = rules(definition);
			Map<String, Object> arguments = (QueryCosts.this.bean != null) ? arguments(field) : null;
			double weight = weight(parent, definition, rules, arguments);
			double cost = argumentWeights(field, rules);
			Object value = data.get(key);
			if (value instanceof List<?> items) {
				for (Object item : items) {
					cost = add(cost, add(weight, each(field, rules, item)));
				}
				return cost;
			}
			return add(cost, add(weight, each(field, rules, value)));
		}

		private double each(Field field, FieldRules rules, Object value) {
			if (rules.leaf() || !(value instanceof Map<?, ?> object)) {
				return 0;
			}
			return actual(field.getSelectionSet(), rules.type(), object);
		}

		private double weight(GraphQLType parent, GraphQLFieldDefinition definition, FieldRules rules,
				Map<String, Object> arguments) {
			if (arguments != null) {
				Double weight = QueryCosts.this.bean.weight(coordinates(parent, definition), arguments);
				if (weight != null) {
					return Math.max(0, Math.min(MAX, weight));
				}
			}
			return rules.weight();
		}

		private double argumentWeights(Field field, FieldRules rules) {
			if (rules.argumentWeights().isEmpty()) {
				return 0;
			}
			double cost = 0;
			for (Argument argument : field.getArguments()) {
				Double weight = rules.argumentWeights().get(argument.getName());
				if (weight != null) {
					cost = add(cost, weight);
				}
			}
			return cost;
		}

		/** The size the field's slicing arguments give (the largest given), if any. */
		private Long slicedSize(Field field, GraphQLType parent, GraphQLFieldDefinition definition, FieldRules rules,
				Map<String, Object> arguments) {
			if (arguments != null) {
				Long size = QueryCosts.this.bean.listSize(coordinates(parent, definition), arguments);
				if (size != null) {
					return Math.max(0, size);
				}
			}
			Long size = null;
			for (String name : rules.slicingArguments()) {
				Long given = null;
				for (Argument argument : field.getArguments()) {
					if (argument.getName().equals(name)) {
						given = integer(value(argument.getValue(), this.variables));
					}
				}
				if (given == null) {
					GraphQLArgument declared = definition.getArgument(name);
					if (declared != null && declared.hasSetDefaultValue()
							&& declared.getArgumentDefaultValue().getValue() instanceof Value<?> literal) {
						given = integer(value(literal, Map.of()));
					}
				}
				if (given != null) {
					size = (size == null) ? given : Math.max(size, given);
				}
			}
			return size;
		}

		private Map<String, Object> arguments(Field field) {
			Map<String, Object> arguments = new LinkedHashMap<>();
			for (Argument argument : field.getArguments()) {
				arguments.put(argument.getName(), value(argument.getValue(), this.variables));
			}
			return arguments;
		}

		private boolean skipped(DirectivesContainer<?> container) {
			for (Directive directive : container.getDirectives()) {
				boolean skip = "skip".equals(directive.getName());
				if (skip || "include".equals(directive.getName())) {
					Argument condition = directive.getArgument("if");
					Object value = (condition != null) ? value(condition.getValue(), this.variables) : null;
					if (value instanceof Boolean flag && flag == skip) {
						return true;
					}
				}
			}
			return false;
		}

		private GraphQLType conditionType(InlineFragment inline, GraphQLType parent) {
			if (inline.getTypeCondition() == null) {
				return parent;
			}
			GraphQLType type = QueryCosts.this.schema.getType(inline.getTypeCondition().getName());
			return (type != null) ? type : parent;
		}

	}

	private static GraphQLFieldDefinition definition(GraphQLType parent, Field field) {
		return (parent instanceof GraphQLFieldsContainer container) ? container.getFieldDefinition(field.getName())
				: null;
	}

	private static FieldCoordinates coordinates(GraphQLType parent, GraphQLFieldDefinition definition) {
		return FieldCoordinates.coordinates(((GraphQLNamedType) parent).getName(), definition.getName());
	}

	private static Long integer(Object value) {
		if (value instanceof BigInteger big) {
			return (big.bitLength() < 63) ? big.longValue() : ((big.signum() > 0) ? Long.MAX_VALUE : 0);
		}
		if (value instanceof Number number) {
			double exact = number.doubleValue();
			return (exact >= Long.MAX_VALUE) ? Long.MAX_VALUE : number.longValue();
		}
		return null;
	}

	/** A literal or a variable as a Java value, as the variables of a request are. */
	static Object value(Value<?> value, Map<String, Object> variables) {
		if (value instanceof VariableReference reference) {
			return variables.get(reference.getName());
		}
		if (value instanceof IntValue integer) {
			return integer.getValue();
		}
		if (value instanceof FloatValue decimal) {
			return decimal.getValue();
		}
		if (value instanceof StringValue string) {
			return string.getValue();
		}
		if (value instanceof BooleanValue bool) {
			return bool.isValue();
		}
		if (value instanceof EnumValue enumValue) {
			return enumValue.getName();
		}
		if (value instanceof ArrayValue array) {
			List<Object> values = new ArrayList<>();
			for (Value<?> item : array.getValues()) {
				values.add(value(item, variables));
			}
			return values;
		}
		if (value instanceof ObjectValue object) {
			Map<String, Object> values = new LinkedHashMap<>();
			for (ObjectField field : object.getObjectFields()) {
				values.put(field.getName(), value(field.getValue(), variables));
			}
			return values;
		}
		return null;
	}

	/** What one walk makes of each kind of selection. */
	private interface Selections {

		double field(Field field, GraphQLType parent);

		double nested(SelectionSet selections, GraphQLType type);

		double spread(String fragment);

	}

	/** A fragment's cost depends on the size its context gives to its lists. */
	private record FragmentKey(String name, Sized sized) {
	}

}
