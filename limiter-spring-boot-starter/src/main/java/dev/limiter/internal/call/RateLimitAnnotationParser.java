package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.annotation.RateLimit;
import dev.limiter.annotation.RateLimits;
import dev.limiter.call.InvalidRateLimitException;
import dev.limiter.internal.limits.InvalidLimitException;
import dev.limiter.internal.limits.LocalLimit;
import dev.limiter.internal.limits.LimitAttributes;
import dev.limiter.internal.limits.LimitResolver.Spelling;
import dev.limiter.internal.limits.LimitOverrides;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.ResolvedLimit;
import dev.limiter.key.RateLimitKeys;

/**
 * Reads the {@link RateLimit @RateLimit} annotations of a method and of its class into a
 * checked {@link AnnotatedOperation}, with names completed from
 * {@code limiter.limits.<name>}.
 * <p>
 * The annotations that apply to a method are checked in one call to the engine (all or
 * nothing), so they must agree on {@code key} and {@code permits}: a method whose
 * annotations give different keys is rejected at startup rather than split into several
 * calls that could consume one quota and then fail on another.
 */
public class RateLimitAnnotationParser {

	/**
	 * The longest {@code maxWait} accepted: a request that waits longer is better
	 * retried.
	 */
	static final Duration MAX_WAIT = Duration.ofSeconds(60);

	private final LimitResolver limits;

	private final SpelExpressionParser parser;

	private final BeanFactoryResolver beanResolver;

	/**
	 * Create a parser.
	 * @param limits resolves the limits the annotations declare, with the named limits,
	 * the default algorithm and shadow mode of the configuration
	 * @param beanFactory the bean factory that resolves {@code @bean} references in key
	 * expressions, or {@code null}
	 */
	public RateLimitAnnotationParser(LimitResolver limits, BeanFactory beanFactory) {
		if (limits == null) {
			throw new IllegalArgumentException("limits must not be null");
		}
		this.limits = limits;
		ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
		this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * Return the overrides of the limit model the operations come from.
	 * @return the overrides
	 */
	LimitOverrides overrides() {
		return this.limits.overrides();
	}

	/**
	 * Return the methods of a class that are rate limited: those annotated themselves,
	 * and every public instance method declared by an annotated class.
	 * @param type the class
	 * @return the rate-limited methods
	 */
	public static List<Method> findRateLimitedMethods(Class<?> type) {
		Class<?> userClass = ClassUtils.getUserClass(type);
		if (!isCandidateClass(userClass)) {
			return List.of();
		}
		List<Method> methods = new ArrayList<>();
		ReflectionUtils.doWithMethods(userClass, (method) -> {
			if (isRateLimited(method)) {
				methods.add(method);
			}
		}, (method) -> method.getDeclaringClass() != Object.class);
		return methods;
	}

	/**
	 * Return whether a class may carry {@code @RateLimit} at all: false for classes whose
	 * annotations cannot hold it, such as the JDK's, without reading them.
	 * @param type the class
	 * @return whether its methods need a look
	 */
	static boolean isCandidateClass(Class<?> type) {
		return AnnotationUtils.isCandidateClass(type, RateLimit.class)
				|| AnnotationUtils.isCandidateClass(type, RateLimits.class);
	}

	/**
	 * Return whether a method is rate limited: it carries {@code @RateLimit}, or it is
	 * public and its class does.
	 * @param method the method
	 * @return whether the method has limits
	 */
	static boolean isRateLimited(Method method) {
		return !method.isBridge() && !method.isSynthetic() && !annotations(method).isEmpty();
	}

	/**
	 * Build and check the operation of a method.
	 * @param method the method
	 * @return the operation, or {@code null} if the method is not rate limited
	 * @throws InvalidRateLimitException if the annotations cannot be enforced
	 */
	AnnotatedOperation parse(Method method) {
		return parse(method, method.getDeclaringClass());
	}

	/**
	 * Build and check the operation of a method called on an object of a class.
	 * @param method the method
	 * @param targetClass the class of the object, which names the operation's counters
	 * @return the operation, or {@code null} if the method is not rate limited
	 * @throws InvalidRateLimitException if the annotations cannot be enforced
	 */
	AnnotatedOperation parse(Method method, Class<?> targetClass) {
		List<RateLimit> annotations = annotations(method);
		if (annotations.isEmpty()) {
			return null;
		}
		String description = describe(method);
		List<ResolvedLimit> resolved = new ArrayList<>(annotations.size());
		List<Limit> limits = new ArrayList<>(annotations.size());
		List<String> messages = new ArrayList<>(annotations.size());
		List<Boolean> shadows = new ArrayList<>(annotations.size());
		Set<String> keys = new LinkedHashSet<>();
		Set<String> conditions = new LinkedHashSet<>();
		Set<Class<? extends Throwable>> refundOn = new LinkedHashSet<>();
		Set<String> planSources = new LinkedHashSet<>();
		Set<String> charges = new LinkedHashSet<>();
		Set<Long> permits = new LinkedHashSet<>();
		Duration maxWait = Duration.ZERO;
		for (RateLimit annotation : annotations) {
			Duration wait = maxWait(description, annotation);
			maxWait = (wait.compareTo(maxWait) > 0) ? wait : maxWait;
			ResolvedLimit limit = limit(description, annotation);
			resolved.add(limit);
			limits.add(limit.limit());
			messages.add(annotation.message());
			shadows.add(limit.shadow());
			keys.add(annotation.key().trim());
			conditions.add(annotation.condition().trim());
			planSources.add(annotation.plan().trim());
			charges.add(annotation.charge().trim());
			refundOn.addAll(Arrays.asList(annotation.refundOn()));
			permits.add(annotation.permits());
		}
		if (conditions.size() > 1) {
			throw new InvalidRateLimitException(description,
					"its @RateLimit annotations (with those of its class) give different conditions "
							+ quoted(conditions),
					"Give every @RateLimit that applies to the method the same condition: the call is limited "
							+ "under all of them or none.");
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
		checkPermits(description, cost, limits, "");
		String keySource = keys.iterator().next();
		String scope = scope(method, targetClass, annotations);
		KeyExpression keyExpression = keySource.isEmpty() ? null
				: KeyExpression.parse(this.parser, this.beanResolver, description, method, keySource);
		String conditionSource = conditions.iterator().next();
		KeyExpression condition = conditionSource.isEmpty() ? null : KeyExpression.parse(this.parser, this.beanResolver,
				description, method, conditionSource, "condition");
		KeyExpression charge = charge(description, method, charges, resolved);
		AnnotatedOperation operation = new AnnotatedOperation(method, scope, description, limits, messages, cost,
				keySource, keyExpression)
			.withOutcomes(condition, List.copyOf(refundOn), shadows)
			.withMaxWait(maxWait)
			.withCharge(charge)
			.withGate(gate(description, resolved, null));
		if (planSources.size() > 1) {
			throw new InvalidRateLimitException(description,
					"its @RateLimit annotations (with those of its class) give different plans " + quoted(planSources),
					"Give every @RateLimit that applies to the method the same plan expression.");
		}
		String planSource = planSources.iterator().next();
		if (planSource.isEmpty()) {
			return operation;
		}
		KeyExpression plan = KeyExpression.parse(this.parser, this.beanResolver, description, method, planSource,
				"plan");
		Map<String, AnnotatedOperation> plans = new java.util.LinkedHashMap<>();
		Set<String> planNames = new LinkedHashSet<>();
		resolved.forEach((limit) -> planNames.addAll(limit.plans().keySet()));
		for (String planName : planNames) {
			List<Limit> planLimits = resolved.stream().map((limit) -> limit.forPlan(planName)).toList();
			checkPermits(description, cost, planLimits, planName);
			plans.put(planName,
					new AnnotatedOperation(method, scope, description, planLimits, messages, cost, keySource,
							keyExpression)
						.withOutcomes(condition, List.copyOf(refundOn), shadows)
						.withMaxWait(maxWait)
						.withCharge(charge)
						.withGate(gate(description, resolved, planName)));
		}
		if (plans.isEmpty()) {
			throw new InvalidRateLimitException(description,
					"plan '" + planSource + "' is given, but no limit of the method has plans under limiter.limits",
					"Define the plans under limiter.limits.<name>.plans.<plan>.threshold (and .period) for the "
							+ "limit's name, or remove plan.");
		}
		return operation.withPlans(plan, plans);
	}

	/**
	 * Parse the charge of a method's limits: one expression for all of them, over limits
	 * that can take a charge (not the sliding log, which keeps an entry per permit).
	 */
	private KeyExpression charge(String description, Method method, Set<String> charges, List<ResolvedLimit> resolved) {
		if (charges.size() > 1) {
			throw new InvalidRateLimitException(description,
					"its @RateLimit annotations (with those of its class) give different charges " + quoted(charges),
					"Give every @RateLimit that applies to the method the same charge: one call settles one cost "
							+ "under all of its limits.");
		}
		String source = charges.iterator().next();
		if (source.isEmpty()) {
			return null;
		}
		List<Limit> all = new ArrayList<>();
		for (ResolvedLimit limit : resolved) {
			all.add(limit.limit());
			all.addAll(limit.plans().values());
		}
		try {
			LimitResolver.checkChargeable("charge '" + source + "'", all, Spelling.ANNOTATION);
		}
		catch (InvalidLimitException ex) {
			throw new InvalidRateLimitException(description, ex.getProblem(), ex.getFix());
		}
		return KeyExpression.parse(this.parser, this.beanResolver, description, method, source, KeyExpression.CHARGE);
	}

	private static LocalLimit.Gate gate(String description, List<ResolvedLimit> resolved, String plan) {
		try {
			return LocalLimit.gate(resolved, plan);
		}
		catch (InvalidLimitException ex) {
			throw new InvalidRateLimitException(description, ex.getProblem(), ex.getFix());
		}
	}

	private static void checkPermits(String description, long permits, List<Limit> limits, String planName) {
		try {
			LimitResolver.checkPermits(permits, limits, Spelling.ANNOTATION);
		}
		catch (InvalidLimitException ex) {
			if (planName.isEmpty()) {
				throw new InvalidRateLimitException(description, ex.getProblem(), ex.getFix());
			}
			throw new InvalidRateLimitException(description, ex.getProblem() + " under plan '" + planName + "'",
					"Lower permits, or raise the plan's threshold (limiter.limits.<name>.plans." + planName
							+ ".threshold).");
		}
	}

	private static Duration maxWait(String description, RateLimit annotation) {
		Duration wait = duration(annotation.maxWait());
		if (wait == null || wait.isNegative() || wait.compareTo(MAX_WAIT) > 0) {
			throw new InvalidRateLimitException(description,
					"maxWait '" + annotation.maxWait().trim() + "' is not a duration between 0 and "
							+ MAX_WAIT.toSeconds() + "s",
					"Set maxWait to how long a call may wait for its turn, such as maxWait = \"500ms\", or leave it "
							+ "empty to reject at once.");
		}
		return wait;
	}

	private static Duration penalty(String description, RateLimit annotation) {
		if (annotation.penalty().isBlank()) {
			return null;
		}
		Duration penalty = duration(annotation.penalty());
		if (penalty == null || penalty.isNegative()) {
			throw new InvalidRateLimitException(description,
					"penalty '" + annotation.penalty().trim() + "' is not a duration",
					"Set penalty to how long a rejected caller stays refused, such as penalty = \"1h\", or leave it "
							+ "empty for none.");
		}
		return penalty;
	}

	/**
	 * Read a duration as the annotation's attributes write it ({@code 500ms}, {@code 1h},
	 * {@code PT1H}); empty is zero.
	 * @return the duration, or {@code null} when the text is none
	 */
	private static Duration duration(String text) {
		String trimmed = text.trim();
		if (trimmed.isEmpty()) {
			return Duration.ZERO;
		}
		try {
			return DurationStyle.detectAndParse(trimmed);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/**
	 * Return what the counters of a method belong to: a name that every one of its limits
	 * carries, which the user shares on purpose, otherwise the method itself, so that two
	 * limited methods (a controller and the service it calls, two methods mapped to one
	 * path, one handler reached by GET and HEAD) never count on one key.
	 */
	private static String scope(Method method, Class<?> targetClass, List<RateLimit> annotations) {
		List<String> names = annotations.stream().map((annotation) -> annotation.name().trim()).toList();
		return LimitResolver.scope(names, RateLimitKeys.methodKey(method, targetClass));
	}

	/**
	 * Resolve the limit one annotation declares; what the annotation alone can get wrong
	 * (several values of a one-value attribute, a period beyond a {@code Duration}) is
	 * checked here, every other rule by the resolver.
	 */
	private ResolvedLimit limit(String description, RateLimit annotation) {
		Algorithm[] algorithms = annotation.algorithm();
		if (algorithms.length > 1) {
			throw new InvalidRateLimitException(description,
					"algorithm has " + algorithms.length + " values " + Arrays.toString(algorithms),
					"Give algorithm at most one value, or none for the default (limiter.algorithm).");
		}
		FailurePolicy[] policies = annotation.failurePolicy();
		if (policies.length > 1) {
			throw new InvalidRateLimitException(description,
					"failurePolicy has " + policies.length + " values " + Arrays.toString(policies),
					"Give failurePolicy at most one value, or none for the default (limiter.failure.policy).");
		}
		Duration period;
		try {
			period = Duration.of(annotation.period(), annotation.unit().toChronoUnit());
		}
		catch (ArithmeticException ex) {
			throw new InvalidRateLimitException(description,
					"period " + annotation.period() + " " + annotation.unit() + " does not fit in a Duration",
					"Set period to a positive window of at most " + Limit.MAX_PERIOD.toDays() + " days.");
		}
		LimitAttributes declared = new LimitAttributes(annotation.name(),
				(annotation.threshold() != 0) ? annotation.threshold() : null, period,
				(algorithms.length == 1) ? algorithms[0] : null,
				(annotation.slices() != Limit.DEFAULT_SLICES) ? annotation.slices() : null,
				(policies.length == 1) ? policies[0] : null, annotation.localThreshold(), annotation.shadow(), Map.of(),
				annotation.calendar(), annotation.zone(), penalty(description, annotation));
		try {
			return this.limits.resolve(declared, Spelling.ANNOTATION);
		}
		catch (InvalidLimitException ex) {
			throw new InvalidRateLimitException(description, ex.getProblem(), ex.getFix());
		}
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
