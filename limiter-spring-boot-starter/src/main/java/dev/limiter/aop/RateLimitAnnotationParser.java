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

import dev.limiter.AbstractRateLimiter;
import dev.limiter.Algorithm;
import dev.limiter.FailurePolicy;
import dev.limiter.Limit;
import dev.limiter.annotation.RateLimit;
import dev.limiter.annotation.RateLimits;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.key.RateLimitKeys;

/**
 * Reads the {@link RateLimit @RateLimit} annotations of a method and of its class into a
 * checked {@link RateLimitOperation}, with names completed from
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

	private final Map<String, LimiterProperties.NamedLimit> namedLimits;

	private final Algorithm defaultAlgorithm;

	private final boolean shadow;

	private final SpelExpressionParser parser;

	private final BeanFactoryResolver beanResolver;

	/**
	 * Create a parser.
	 * @param namedLimits the named limits of the configuration
	 * @param beanFactory the bean factory that resolves {@code @bean} references in key
	 * expressions, or {@code null}
	 */
	public RateLimitAnnotationParser(Map<String, LimiterProperties.NamedLimit> namedLimits, BeanFactory beanFactory) {
		this(namedLimits, Algorithm.SLIDING_LOG, false, beanFactory);
	}

	/**
	 * Create a parser.
	 * @param namedLimits the named limits of the configuration
	 * @param defaultAlgorithm the algorithm of limits that choose none
	 * ({@code limiter.algorithm})
	 * @param shadow whether every limit only watches unless its configuration says
	 * otherwise ({@code limiter.shadow})
	 * @param beanFactory the bean factory that resolves {@code @bean} references in key
	 * expressions, or {@code null}
	 */
	public RateLimitAnnotationParser(Map<String, LimiterProperties.NamedLimit> namedLimits, Algorithm defaultAlgorithm,
			boolean shadow, BeanFactory beanFactory) {
		if (namedLimits == null || defaultAlgorithm == null) {
			throw new IllegalArgumentException("namedLimits and defaultAlgorithm must not be null");
		}
		this.namedLimits = Map.copyOf(namedLimits);
		this.defaultAlgorithm = defaultAlgorithm;
		this.shadow = shadow;
		ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
		this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
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
	RateLimitOperation parse(Method method) {
		return parse(method, method.getDeclaringClass());
	}

	/**
	 * Build and check the operation of a method called on an object of a class.
	 * @param method the method
	 * @param targetClass the class of the object, which names the operation's counters
	 * @return the operation, or {@code null} if the method is not rate limited
	 * @throws InvalidRateLimitException if the annotations cannot be enforced
	 */
	RateLimitOperation parse(Method method, Class<?> targetClass) {
		List<RateLimit> annotations = annotations(method);
		if (annotations.isEmpty()) {
			return null;
		}
		String description = describe(method);
		List<Limit> limits = new ArrayList<>(annotations.size());
		List<String> messages = new ArrayList<>(annotations.size());
		List<Boolean> shadows = new ArrayList<>(annotations.size());
		Set<String> keys = new LinkedHashSet<>();
		Set<String> conditions = new LinkedHashSet<>();
		Set<Class<? extends Throwable>> refundOn = new LinkedHashSet<>();
		Set<String> planSources = new LinkedHashSet<>();
		Set<Long> permits = new LinkedHashSet<>();
		Duration maxWait = Duration.ZERO;
		for (RateLimit annotation : annotations) {
			Duration wait = maxWait(description, annotation);
			maxWait = (wait.compareTo(maxWait) > 0) ? wait : maxWait;
			limits.add(limit(description, annotation));
			messages.add(annotation.message());
			shadows.add(shadow(annotation));
			keys.add(annotation.key().trim());
			conditions.add(annotation.condition().trim());
			planSources.add(annotation.plan().trim());
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
		try {
			AbstractRateLimiter.validate("key", cost, limits);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitException(description, ex.getMessage(),
					"Lower permits, or raise the threshold of the smallest limit.");
		}
		String keySource = keys.iterator().next();
		String scope = scope(method, targetClass, annotations);
		KeyExpression keyExpression = keySource.isEmpty() ? null
				: KeyExpression.parse(this.parser, this.beanResolver, description, method, keySource);
		String conditionSource = conditions.iterator().next();
		KeyExpression condition = conditionSource.isEmpty() ? null : KeyExpression.parse(this.parser, this.beanResolver,
				description, method, conditionSource, "condition");
		RateLimitOperation operation = new RateLimitOperation(method, scope, description, limits, messages, cost,
				keySource, keyExpression)
			.withOutcomes(condition, List.copyOf(refundOn), shadows)
			.withMaxWait(maxWait);
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
		Map<String, RateLimitOperation> plans = new java.util.LinkedHashMap<>();
		for (String planName : planNames(annotations)) {
			List<Limit> planLimits = new ArrayList<>(limits.size());
			for (int i = 0; i < limits.size(); i++) {
				planLimits.add(planned(limits.get(i), configured(annotations.get(i)), planName));
			}
			try {
				AbstractRateLimiter.validate("key", cost, planLimits);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidRateLimitException(description, ex.getMessage() + " under plan '" + planName + "'",
						"Lower permits, or raise the plan's threshold (limiter.limits.<name>.plans." + planName
								+ ".threshold).");
			}
			plans.put(planName,
					new RateLimitOperation(method, scope, description, planLimits, messages, cost, keySource,
							keyExpression)
						.withOutcomes(condition, List.copyOf(refundOn), shadows)
						.withMaxWait(maxWait));
		}
		if (plans.isEmpty()) {
			throw new InvalidRateLimitException(description,
					"plan '" + planSource + "' is given, but no limit of the method has plans under limiter.limits",
					"Define the plans under limiter.limits.<name>.plans.<plan>.threshold (and .period) for the "
							+ "limit's name, or remove plan.");
		}
		return operation.withPlans(plan, plans);
	}

	private LimiterProperties.NamedLimit configured(RateLimit annotation) {
		String name = annotation.name().trim();
		return name.isEmpty() ? null : this.namedLimits.get(name);
	}

	private Set<String> planNames(List<RateLimit> annotations) {
		Set<String> names = new LinkedHashSet<>();
		for (RateLimit annotation : annotations) {
			LimiterProperties.NamedLimit configured = configured(annotation);
			if (configured != null) {
				names.addAll(configured.getPlans().keySet());
			}
		}
		return names;
	}

	/**
	 * Return a limit with a plan's numbers, or the limit itself when its name has no such
	 * plan.
	 */
	private static Limit planned(Limit limit, LimiterProperties.NamedLimit configured, String planName) {
		LimiterProperties.Plan plan = (configured != null) ? configured.getPlans().get(planName) : null;
		if (plan == null) {
			return limit;
		}
		long local = (limit.localThreshold() != limit.threshold()) ? limit.localThreshold() : 0;
		return Limit
			.of(limit.name(), plan.getThreshold(), (plan.getPeriod() != null) ? plan.getPeriod() : limit.period())
			.withAlgorithm(limit.algorithm())
			.withSlices(limit.slices())
			.withFailurePolicy(limit.failurePolicy())
			.withLocalThreshold(local);
	}

	private static Duration maxWait(String description, RateLimit annotation) {
		String text = annotation.maxWait().trim();
		if (text.isEmpty()) {
			return Duration.ZERO;
		}
		Duration wait;
		try {
			wait = DurationStyle.detectAndParse(text);
		}
		catch (IllegalArgumentException ex) {
			wait = null;
		}
		if (wait == null || wait.isNegative() || wait.compareTo(MAX_WAIT) > 0) {
			throw new InvalidRateLimitException(description,
					"maxWait '" + text + "' is not a duration between 0 and " + MAX_WAIT.toSeconds() + "s",
					"Set maxWait to how long a call may wait for its turn, such as maxWait = \"500ms\", or leave it "
							+ "empty to reject at once.");
		}
		return wait;
	}

	/**
	 * Return whether a limit only watches: {@code limiter.limits.<name>.shadow} when set,
	 * else {@code limiter.shadow} or the annotation's.
	 */
	private boolean shadow(RateLimit annotation) {
		String name = annotation.name().trim();
		LimiterProperties.NamedLimit configured = name.isEmpty() ? null : this.namedLimits.get(name);
		if (configured != null && configured.getShadow() != null) {
			return configured.getShadow();
		}
		return this.shadow || annotation.shadow();
	}

	/**
	 * Return what the counters of a method belong to: a name that every one of its limits
	 * carries, which the user shares on purpose, otherwise the method itself, so that two
	 * limited methods (a controller and the service it calls, two methods mapped to one
	 * path, one handler reached by GET and HEAD) never count on one key.
	 */
	private static String scope(Method method, Class<?> targetClass, List<RateLimit> annotations) {
		Set<String> names = new LinkedHashSet<>();
		for (RateLimit annotation : annotations) {
			names.add(annotation.name().trim());
		}
		String name = (names.size() == 1) ? names.iterator().next() : "";
		return name.isEmpty() ? RateLimitKeys.methodKey(method, targetClass) : "n:" + RateLimitKeys.bounded(name);
	}

	private Limit limit(String description, RateLimit annotation) {
		String name = annotation.name().trim();
		LimiterProperties.NamedLimit configured = name.isEmpty() ? null : this.namedLimits.get(name);
		if (!name.isEmpty() && configured == null && annotation.threshold() <= 0) {
			throw new InvalidRateLimitException(description,
					"limit '" + name + "' is not defined under limiter.limits and the annotation gives no threshold",
					"Define limiter.limits." + name + ".threshold (and .period) in the configuration, or give the "
							+ "annotation a threshold.");
		}
		long threshold = (configured != null && configured.getThreshold() != null) ? configured.getThreshold()
				: annotation.threshold();
		Duration period;
		try {
			period = (configured != null && configured.getPeriod() != null) ? configured.getPeriod()
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
		return withAlgorithm(description, annotation, configured,
				withFailureSettings(description, annotation, configured, limit));
	}

	private Limit withAlgorithm(String description, RateLimit annotation, LimiterProperties.NamedLimit configured,
			Limit limit) {
		Algorithm[] algorithms = annotation.algorithm();
		if (algorithms.length > 1) {
			throw new InvalidRateLimitException(description,
					"algorithm has " + algorithms.length + " values " + Arrays.toString(algorithms),
					"Give algorithm at most one value, or none for the default (limiter.algorithm).");
		}
		Algorithm algorithm = (configured != null && configured.getAlgorithm() != null) ? configured.getAlgorithm()
				: (algorithms.length == 1) ? algorithms[0] : this.defaultAlgorithm;
		int slices = (configured != null && configured.getSlices() != null) ? configured.getSlices()
				: annotation.slices();
		if (slices != Limit.DEFAULT_SLICES && algorithm != Algorithm.SLIDING_BUCKETS) {
			throw new InvalidRateLimitException(description,
					"slices = " + slices + " is given to a " + algorithm.text() + " limit " + limit,
					"Slices cut a sliding-buckets window: remove slices, or set algorithm = "
							+ "Algorithm.SLIDING_BUCKETS (limiter.limits.<name>.algorithm: sliding-buckets).");
		}
		try {
			return limit.withAlgorithm(algorithm).withSlices(slices);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitException(description, ex.getMessage(),
					"Set slices (or limiter.limits.<name>.slices) between 1 and " + Limit.MAX_SLICES
							+ "; 60 makes one-minute slices of a one-hour window.");
		}
	}

	private static Limit withFailureSettings(String description, RateLimit annotation,
			LimiterProperties.NamedLimit configured, Limit limit) {
		FailurePolicy[] policies = annotation.failurePolicy();
		if (policies.length > 1) {
			throw new InvalidRateLimitException(description,
					"failurePolicy has " + policies.length + " values " + Arrays.toString(policies),
					"Give failurePolicy at most one value, or none for the default (limiter.failure.policy).");
		}
		FailurePolicy policy = (configured != null && configured.getFailurePolicy() != null)
				? configured.getFailurePolicy() : (policies.length == 1) ? policies[0] : null;
		long localThreshold = (configured != null && configured.getLocalThreshold() != null)
				? configured.getLocalThreshold() : annotation.localThreshold();
		try {
			return limit.withFailurePolicy(policy).withLocalThreshold(localThreshold);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitException(description, ex.getMessage(),
					"Set localThreshold to 0 (the threshold) or to the most calls each instance admits on its own "
							+ "while Redis is unavailable, at most " + Limit.MAX_THRESHOLD + ".");
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
