package dev.limiter.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.StandardReflectionParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.limiter.AbstractRateLimiter;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.annotation.RateLimit;
import dev.limiter.annotation.RateLimits;
import dev.limiter.key.RateLimitInvocation;
import dev.limiter.key.RateLimitKeys;
import dev.limiter.aop.RateLimitOperation.KeyVariable;

/**
 * Finds and checks the {@link RateLimit @RateLimit} annotations of methods and builds
 * their {@link RateLimitOperation operations} once, so that the hot path only looks them
 * up.
 * <p>
 * The annotations that apply to a method are those on the method and those on the class
 * that declares it. They are checked in one call to the engine (all or nothing), so they
 * must agree on {@code key} and {@code permits}: a method whose annotations give
 * different keys is rejected at startup rather than split into several calls that could
 * consume one quota and then fail on another.
 * <p>
 * A {@code key} expression is parsed once. It is evaluated with the method's parameters
 * as variables ({@code #user}, or {@code #p0}/{@code #a0}), the current HTTP request as
 * {@code #request} and beans as {@code @name}. Its value is scoped to the method: the
 * same value on two methods gives two quotas.
 */
public class RateLimitOperationSource {

	/** The variable under which a key expression sees the current HTTP request. */
	public static final String REQUEST_VARIABLE = "request";

	private static final Pattern ALIAS = Pattern.compile("[ap](\\d+)");

	private static final Set<String> BUILT_IN_VARIABLES = Set.of("root", "this");

	private static final Object NONE = new Object();

	private final Map<String, ConfiguredLimit> configuredLimits;

	private final BeanFactoryResolver beanResolver;

	private final SpelExpressionParser parser;

	private final StandardReflectionParameterNameDiscoverer parameterNames = new StandardReflectionParameterNameDiscoverer();

	// Shared so that the reflective look-ups it caches survive from one call to the next.
	private final List<PropertyAccessor> propertyAccessors = List.of(new ReflectivePropertyAccessor());

	private final Map<Method, Object> cache = new ConcurrentHashMap<>(64);

	/**
	 * Create a source.
	 * @param configuredLimits the named limits of the configuration
	 * @param beanFactory the bean factory that resolves {@code @bean} references in key
	 * expressions, or {@code null}
	 */
	public RateLimitOperationSource(Map<String, ConfiguredLimit> configuredLimits, BeanFactory beanFactory) {
		if (configuredLimits == null) {
			throw new IllegalArgumentException("configuredLimits must not be null");
		}
		this.configuredLimits = Map.copyOf(configuredLimits);
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
		ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
		this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
	}

	/**
	 * Return the methods of a class that are rate limited: those annotated themselves,
	 * and every public instance method declared by an annotated class.
	 * @param type the class
	 * @return the rate-limited methods
	 */
	public static List<Method> findRateLimitedMethods(Class<?> type) {
		Class<?> userClass = ClassUtils.getUserClass(type);
		if (!AnnotationUtils.isCandidateClass(userClass, RateLimit.class)
				&& !AnnotationUtils.isCandidateClass(userClass, RateLimits.class)) {
			return List.of();
		}
		List<Method> methods = new ArrayList<>();
		ReflectionUtils.doWithMethods(userClass, (method) -> {
			if (!method.isBridge() && !method.isSynthetic() && !annotations(method).isEmpty()) {
				methods.add(method);
			}
		}, (method) -> method.getDeclaringClass() != Object.class);
		return methods;
	}

	/**
	 * Return the operation of a method, building and checking it on the first call.
	 * @param method the invoked method
	 * @param targetClass the class of the target object, or {@code null}
	 * @return the operation, or {@code null} if the method is not rate limited
	 * @throws InvalidRateLimitException if the annotations cannot be enforced
	 */
	public RateLimitOperation getOperation(Method method, Class<?> targetClass) {
		Method specific = ClassUtils.getMostSpecificMethod(method, targetClass);
		Object cached = this.cache.get(specific);
		if (cached == null) {
			RateLimitOperation operation = build(specific);
			cached = (operation != null) ? operation : NONE;
			this.cache.put(specific, cached);
		}
		return (cached != NONE) ? (RateLimitOperation) cached : null;
	}

	/**
	 * Evaluate the key expression of an operation for one call.
	 * @param invocation the call, whose operation has a key expression
	 * @return the key: the operation's scope and the bounded value of the expression
	 * @throws IllegalStateException if the expression gives {@code null} or a blank value
	 */
	public String evaluateKey(RateLimitInvocation invocation) {
		RateLimitOperation operation = invocation.operation();
		Object[] arguments = invocation.arguments();
		StandardEvaluationContext context = new StandardEvaluationContext();
		context.setPropertyAccessors(this.propertyAccessors);
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		for (KeyVariable variable : operation.getKeyVariables()) {
			Object value = (variable.index() == KeyVariable.REQUEST) ? invocation.request()
					: (variable.index() < arguments.length) ? arguments[variable.index()] : null;
			context.setVariable(variable.name(), value);
		}
		Object value = operation.getKeyExpression().getValue((EvaluationContext) context);
		String text = (value != null) ? value.toString() : null;
		if (text == null || text.isBlank()) {
			throw new IllegalStateException("Rate-limit key '" + operation.getKeySource() + "' of "
					+ operation.getDescription() + " evaluated to " + ((text == null) ? "null" : "a blank value"));
		}
		return operation.key(RateLimitKeys.bounded(text));
	}

	private static List<RateLimit> annotations(Method method) {
		if (Modifier.isStatic(method.getModifiers())) {
			return List.of();
		}
		List<RateLimit> annotations = new ArrayList<>();
		if (Modifier.isPublic(method.getModifiers())) {
			annotations.addAll(AnnotatedElementUtils.getMergedRepeatableAnnotations(method.getDeclaringClass(),
					RateLimit.class, RateLimits.class));
		}
		annotations
			.addAll(AnnotatedElementUtils.getMergedRepeatableAnnotations(method, RateLimit.class, RateLimits.class));
		return annotations;
	}

	private RateLimitOperation build(Method method) {
		List<RateLimit> annotations = annotations(method);
		if (annotations.isEmpty()) {
			return null;
		}
		String description = describe(method);
		List<Limit> limits = new ArrayList<>(annotations.size());
		List<String> messages = new ArrayList<>(annotations.size());
		Set<String> keys = new LinkedHashSet<>();
		Set<Long> permits = new LinkedHashSet<>();
		for (RateLimit annotation : annotations) {
			limits.add(limit(description, annotation));
			messages.add(annotation.message());
			keys.add(annotation.key().trim());
			permits.add(annotation.permits());
		}
		if (keys.size() > 1) {
			throw new InvalidRateLimitException(description,
					"its @RateLimit annotations (with those of its class) give different keys " + quoted(keys),
					"Give every @RateLimit that applies to the method the same key: all of them are checked in one "
							+ "atomic call for one key. Move a limit with another key to another method.");
		}
		if (permits.size() > 1) {
			throw new InvalidRateLimitException(description,
					"its @RateLimit annotations (with those of its class) give different permits " + permits,
					"Give every @RateLimit that applies to the method the same permits: one call takes one number "
							+ "of permits under all of its limits.");
		}
		long cost = permits.iterator().next();
		try {
			AbstractRateLimiter.validate("key", cost, limits);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitException(description, ex.getMessage(),
					"Lower permits, or raise the threshold of the smallest limit.");
		}
		String keySource = keys.iterator().next();
		String scope = scope(method, annotations);
		if (keySource.isEmpty()) {
			return new RateLimitOperation(method, scope, description, limits, messages, cost, keySource, null,
					List.of());
		}
		Expression expression = parse(description, keySource);
		List<KeyVariable> variables = variables(description, method, keySource, expression);
		return new RateLimitOperation(method, scope, description, limits, messages, cost, keySource, expression,
				variables);
	}

	/**
	 * Return what the counters of a method belong to: a name that every one of its limits
	 * carries, which the user shares on purpose, otherwise the method itself, so that two
	 * limited methods (a controller and the service it calls, two methods mapped to one
	 * path, one handler reached by GET and HEAD) never count on one key.
	 */
	private static String scope(Method method, List<RateLimit> annotations) {
		Set<String> names = new LinkedHashSet<>();
		for (RateLimit annotation : annotations) {
			names.add(annotation.name().trim());
		}
		String name = (names.size() == 1) ? names.iterator().next() : "";
		return name.isEmpty() ? RateLimitKeys.methodKey(method) : "n:" + RateLimitKeys.bounded(name);
	}

	private Limit limit(String description, RateLimit annotation) {
		String name = annotation.name().trim();
		ConfiguredLimit configured = name.isEmpty() ? null : this.configuredLimits.get(name);
		if (!name.isEmpty() && configured == null && annotation.threshold() <= 0) {
			throw new InvalidRateLimitException(description,
					"limit '" + name + "' is not defined under limiter.limits and the annotation gives no threshold",
					"Define limiter.limits." + name + ".threshold (and .period) in the configuration, or give the "
							+ "annotation a threshold.");
		}
		long threshold = (configured != null && configured.threshold() != null) ? configured.threshold()
				: annotation.threshold();
		Duration period;
		try {
			period = (configured != null && configured.period() != null) ? configured.period()
					: Duration.of(annotation.period(), annotation.unit().toChronoUnit());
		}
		catch (ArithmeticException ex) {
			throw new InvalidRateLimitException(description,
					"period " + annotation.period() + " " + annotation.unit() + " does not fit in a Duration",
					"Set period to a positive window of at most " + Limit.MAX_PERIOD.toDays() + " days.");
		}
		Limit limit;
		try {
			limit = name.isEmpty() ? Limit.of(threshold, period) : Limit.of(name, threshold, period);
		}
		catch (IllegalArgumentException ex) {
			String fix = ex.getMessage().startsWith("threshold")
					? "Set threshold to a value between 1 and " + Limit.MAX_THRESHOLD
							+ ", or name a limit (name = \"...\") defined under limiter.limits."
					: "Set period (in the annotation's unit, or limiter.limits.<name>.period) to a positive window "
							+ "of whole milliseconds, at most " + Limit.MAX_PERIOD.toDays() + " days.";
			throw new InvalidRateLimitException(description, ex.getMessage(), fix);
		}
		return withFailureSettings(description, annotation, configured, limit);
	}

	private static Limit withFailureSettings(String description, RateLimit annotation, ConfiguredLimit configured,
			Limit limit) {
		FailurePolicy[] policies = annotation.failurePolicy();
		if (policies.length > 1) {
			throw new InvalidRateLimitException(description,
					"failurePolicy has " + policies.length + " values " + Arrays.toString(policies),
					"Give failurePolicy at most one value, or none for the default (limiter.failure.policy).");
		}
		FailurePolicy policy = (configured != null && configured.failurePolicy() != null) ? configured.failurePolicy()
				: (policies.length == 1) ? policies[0] : null;
		long localThreshold = (configured != null && configured.localThreshold() != null) ? configured.localThreshold()
				: annotation.localThreshold();
		try {
			return limit.withFailurePolicy(policy).withLocalThreshold(localThreshold);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitException(description, ex.getMessage(),
					"Set localThreshold to 0 (the threshold) or to the most calls each instance admits on its own "
							+ "while Redis is unavailable, at most " + Limit.MAX_THRESHOLD + ".");
		}
	}

	private Expression parse(String description, String keySource) {
		try {
			return this.parser.parseExpression(keySource);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitException(description,
					"key '" + keySource + "' is not a valid SpEL expression: " + ex.getSimpleMessage(),
					"Correct the key expression, such as key = \"#user\" or key = \"#order.customerId\".");
		}
	}

	private List<KeyVariable> variables(String description, Method method, String keySource, Expression expression) {
		String[] names = this.parameterNames.getParameterNames(method);
		List<String> parameters = (names != null) ? Arrays.asList(names) : List.of();
		Set<String> referenced = new LinkedHashSet<>();
		if (expression instanceof SpelExpression spel) {
			collectVariables(spel.getAST(), referenced);
		}
		List<KeyVariable> variables = new ArrayList<>();
		for (String name : referenced) {
			int index = parameters.indexOf(name);
			Matcher alias = ALIAS.matcher(name);
			if (index < 0 && alias.matches() && Integer.parseInt(alias.group(1)) < method.getParameterCount()) {
				index = Integer.parseInt(alias.group(1));
			}
			if (index >= 0) {
				variables.add(new KeyVariable(name, index));
			}
			else if (REQUEST_VARIABLE.equals(name)) {
				variables.add(new KeyVariable(name, KeyVariable.REQUEST));
			}
			else if (!BUILT_IN_VARIABLES.contains(name)) {
				throw new InvalidRateLimitException(description,
						"key '" + keySource + "' refers to #" + name + ", which is not a parameter of the method "
								+ "(parameters: " + parameters + ")",
						"Refer to a parameter by its name (compile with -parameters) or as #p0, to the request as "
								+ "#request, or to a bean as @name.");
			}
		}
		return variables;
	}

	private static void collectVariables(SpelNode node, Set<String> names) {
		if (node instanceof VariableReference) {
			names.add(node.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectVariables(node.getChild(i), names);
		}
	}

	private static String describe(Method method) {
		StringBuilder description = new StringBuilder(method.getDeclaringClass().getName()).append('.')
			.append(method.getName())
			.append('(');
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			description.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return description.append(')').toString();
	}

	private static String quoted(Set<String> keys) {
		return keys.stream().map((key) -> "'" + key + "'").toList().toString();
	}

}
