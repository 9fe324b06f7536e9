package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.KotlinDetector;
import org.springframework.core.StandardReflectionParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;
import org.springframework.expression.spel.support.StandardEvaluationContext;

import dev.limiter.call.InvalidRateLimitException;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.key.RateLimitKeys;

/**
 * The SpEL {@code key} of a rate-limited method, parsed and checked once: it reads the
 * method's parameters by name ({@code #user}, or {@code #p0}/{@code #a0}), the current
 * request as {@code #request} and beans as {@code @name}.
 */
final class KeyExpression {

	/** The variable under which a key expression sees the current request. */
	static final String REQUEST_VARIABLE = "request";

	/** The variable under which a charge expression sees the method's result. */
	static final String RESULT_VARIABLE = "result";

	/** The attribute whose expression reads the method's result. */
	static final String CHARGE = "charge";

	private static final Pattern ALIAS = Pattern.compile("[ap](\\d+)");

	private static final Set<String> BUILT_IN_VARIABLES = Set.of("root", "this");

	private static final StandardReflectionParameterNameDiscoverer parameterNames = new StandardReflectionParameterNameDiscoverer();

	// Shared so that the reflective look-ups it caches survive from one call to the next.
	private static final List<PropertyAccessor> propertyAccessors = List.of(new ReflectivePropertyAccessor());

	private final String source;

	private final Expression expression;

	private final List<KeyVariable> variables;

	private final BeanFactoryResolver beanResolver;

	private KeyExpression(String source, Expression expression, List<KeyVariable> variables,
			BeanFactoryResolver beanResolver) {
		this.source = source;
		this.expression = expression;
		this.variables = List.copyOf(variables);
		this.beanResolver = beanResolver;
	}

	/**
	 * Parse and check a key expression.
	 * @param parser the parser
	 * @param beanResolver resolves {@code @bean} references, or {@code null}
	 * @param description the method as shown in errors
	 * @param method the method whose parameters the expression reads
	 * @param source the expression
	 * @return the expression
	 * @throws InvalidRateLimitException if it does not parse or names a missing variable
	 */
	static KeyExpression parse(SpelExpressionParser parser, BeanFactoryResolver beanResolver, String description,
			Method method, String source) {
		return parse(parser, beanResolver, description, method, source, "key");
	}

	/**
	 * Parse and check an expression of an annotation's attribute over the same variables
	 * as a key, such as its {@code condition}.
	 * @param parser the parser
	 * @param beanResolver resolves {@code @bean} references, or {@code null}
	 * @param description the method as shown in errors
	 * @param method the method whose parameters the expression reads
	 * @param source the expression
	 * @param attribute the attribute, as named in errors
	 * @return the expression
	 * @throws InvalidRateLimitException if it does not parse or names a missing variable
	 */
	static KeyExpression parse(SpelExpressionParser parser, BeanFactoryResolver beanResolver, String description,
			Method method, String source, String attribute) {
		Expression expression;
		try {
			expression = parser.parseExpression(source);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitException(description,
					attribute + " '" + source + "' is not a valid SpEL expression: " + ex.getSimpleMessage(),
					"Correct the " + attribute + " expression, such as " + attribute + " = \"#user\" or " + attribute
							+ " = \"#order.customerId\".");
		}
		return new KeyExpression(source, expression, variables(description, method, source, expression, attribute),
				beanResolver);
	}

	String source() {
		return this.source;
	}

	/**
	 * Add the indexes of the method's parameters that this expression reads.
	 * @param read the indexes so far
	 */
	void argumentsRead(BitSet read) {
		for (KeyVariable variable : this.variables) {
			if (variable.index() >= 0) {
				read.set(variable.index());
			}
		}
	}

	/**
	 * Evaluate the expression for one call.
	 * @param invocation the call
	 * @return the key: the operation's scope and the bounded value of the expression
	 * @throws IllegalStateException if the expression gives {@code null} or a blank value
	 */
	String evaluate(RateLimitInvocation invocation) {
		RateLimitOperation operation = invocation.operation();
		Object value = value(invocation);
		String text = (value != null) ? value.toString() : null;
		if (text == null || text.isBlank()) {
			throw new IllegalStateException("Rate-limit key '" + this.source + "' of " + operation.getDescription()
					+ " evaluated to " + ((text == null) ? "null" : "a blank value"));
		}
		return RateLimitKeys.key(operation.getScope(), RateLimitKeys.bounded(text));
	}

	/**
	 * Evaluate the expression as a condition for one call.
	 * @param invocation the call
	 * @return whether it is {@code true}
	 */
	boolean test(RateLimitInvocation invocation) {
		return Boolean.TRUE.equals(value(invocation));
	}

	/**
	 * Evaluate the expression as text for one call, such as a plan's name.
	 * @param invocation the call
	 * @return the text, or {@code null}
	 */
	String text(RateLimitInvocation invocation) {
		Object value = value(invocation);
		return (value != null) ? value.toString() : null;
	}

	/**
	 * Evaluate the expression for one call that returned, with its result as
	 * {@code #result}, such as the call's real cost.
	 * @param invocation the call
	 * @param result what the method returned, or one element of a stream
	 * @return the value
	 */
	Object value(RateLimitInvocation invocation, Object result) {
		return value(invocation, result, true);
	}

	private Object value(RateLimitInvocation invocation) {
		return value(invocation, null, false);
	}

	private Object value(RateLimitInvocation invocation, Object result, boolean returned) {
		Object[] arguments = invocation.arguments();
		StandardEvaluationContext context = new StandardEvaluationContext();
		context.setPropertyAccessors(propertyAccessors);
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		for (KeyVariable variable : this.variables) {
			Object value = (variable.index() == KeyVariable.REQUEST) ? invocation.request()
					: (variable.index() == KeyVariable.RESULT) ? (returned ? result : null)
							: (variable.index() == KeyVariable.SURFACE) ? surfaceVariable(invocation, variable.name())
									: (variable.index() < arguments.length) ? arguments[variable.index()] : null;
			context.setVariable(variable.name(), value);
		}
		return this.expression.getValue((EvaluationContext) context);
	}

	private static List<KeyVariable> variables(String description, Method method, String keySource,
			Expression expression, String attribute) {
		// A suspend function's last parameter is the Continuation the compiler adds:
		// never an argument the expression can mean.
		// a surface's operation without a method (limiter.graphql.key) reads only the
		// surface's variables and the request
		int count = (method != null)
				? method.getParameterCount() - (KotlinDetector.isSuspendingFunction(method) ? 1 : 0) : 0;
		String[] names = (method != null) ? parameterNames.getParameterNames(method) : null;
		List<String> parameters = (names != null) ? Arrays.asList(names).subList(0, count) : List.of();
		Set<String> referenced = new LinkedHashSet<>();
		if (expression instanceof SpelExpression spel) {
			collectVariables(spel.getAST(), referenced);
		}
		List<KeyVariable> variables = new ArrayList<>();
		for (String name : referenced) {
			int index = parameters.indexOf(name);
			Matcher alias = ALIAS.matcher(name);
			if (index < 0 && alias.matches() && Integer.parseInt(alias.group(1)) < count) {
				index = Integer.parseInt(alias.group(1));
			}
			if (index >= 0) {
				variables.add(new KeyVariable(name, index));
			}
			else if (REQUEST_VARIABLE.equals(name)) {
				variables.add(new KeyVariable(name, KeyVariable.REQUEST));
			}
			else if (RESULT_VARIABLE.equals(name) && CHARGE.equals(attribute)) {
				variables.add(new KeyVariable(name, KeyVariable.RESULT));
			}
			else if (SurfaceRequest.VARIABLES.contains(name)) {
				variables.add(new KeyVariable(name, KeyVariable.SURFACE));
			}
			else if (!BUILT_IN_VARIABLES.contains(name) && method == null) {
				throw new InvalidRateLimitException(description,
						attribute + " '" + keySource + "' refers to #" + name + ", which is not a variable here",
						"Refer to the request's headers as #headers, such as #headers.getFirst('X-Api-Key'), or to a "
								+ "bean as @name.");
			}
			else if (!BUILT_IN_VARIABLES.contains(name) && names == null && count > 0) {
				// the class file keeps no parameter names: javac without -parameters
				throw new InvalidRateLimitException(description,
						attribute + " '" + keySource + "' refers to #" + name
								+ ", but the method's parameter names are not known: its class was compiled without "
								+ "-parameters",
						"Compile with -parameters (Spring Boot's Maven and Gradle plugins do; elsewhere add it to the "
								+ "compiler's arguments), or refer to the parameter by its position, as #p0.");
			}
			else if (!BUILT_IN_VARIABLES.contains(name)) {
				throw new InvalidRateLimitException(description,
						attribute + " '" + keySource + "' refers to #" + name
								+ ", which is not a parameter of the method " + "(parameters: " + parameters + ")",
						"Refer to a parameter by its name (compile with -parameters) or as #p0, to the request as "
								+ "#request, or to a bean as @name.");
			}
		}
		return variables;
	}

	/** A surface's own variable, such as gRPC's {@code #metadata}; null elsewhere. */
	private static Object surfaceVariable(RateLimitInvocation invocation, String name) {
		return (invocation.request() instanceof SurfaceRequest surface) ? surface.variable(name) : null;
	}

	private static void collectVariables(SpelNode node, Set<String> names) {
		if (node instanceof VariableReference) {
			names.add(node.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectVariables(node.getChild(i), names);
		}
	}

	/**
	 * A variable that the expression reads: a method argument (by index), the current
	 * request (index -1), for a charge the method's result (index -2), or a surface's own
	 * variable (index -3, such as gRPC's {@code #metadata}).
	 */
	record KeyVariable(String name, int index) {

		static final int REQUEST = -1;

		static final int RESULT = -2;

		static final int SURFACE = -3;

	}

}
