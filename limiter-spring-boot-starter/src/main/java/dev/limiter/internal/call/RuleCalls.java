package dev.limiter.internal.call;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

import dev.limiter.call.InvalidRateLimitException;
import dev.limiter.call.RateLimitInvocation;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.call.RouteLimitSettings;
import dev.limiter.internal.limits.LimitResolver;
import dev.limiter.internal.limits.LimitResolver.Spelling;

/**
 * The calls of the rules by path ({@code limiter.web.rules}), whichever web stack serves
 * them: each rule is an operation of the operation source, limited by named limits
 * (listed, read, reset and overridden through the {@code ratelimits} endpoint as
 * {@code rule <index> <paths>}), and a request is prepared and decided for every rule it
 * matches through the one {@link CallPipeline}, as gateway routes are. A stack's filter
 * matches the request, decides its rules in order, and gives back the grants of the
 * earlier ones when a later limit of the request refuses it.
 */
public final class RuleCalls {

	private static final String PROPERTY = "limiter.web.rules";

	private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private final RouteCalls routes;

	private final RateLimitOperationSource operations;

	private final CallPipeline pipeline;

	private final LimitResolver resolver;

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private BeanFactoryResolver beanResolver;

	private volatile List<Rule> rules = List.of();

	/**
	 * Create the calls of the rules.
	 * @param routes registers each rule's operation, as it registers gateway routes
	 * @param operations where the operations are listed
	 * @param pipeline decides the rules' calls
	 * @param resolver the named limits the rules refer to
	 */
	public RuleCalls(RouteCalls routes, RateLimitOperationSource operations, CallPipeline pipeline,
			LimitResolver resolver) {
		this.routes = routes;
		this.operations = operations;
		this.pipeline = pipeline;
		this.resolver = resolver;
	}

	/**
	 * Let keys and conditions refer to beans as {@code @name}.
	 * @param beanFactory the application's beans
	 */
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanResolver = new BeanFactoryResolver(beanFactory);
	}

	/**
	 * Check and apply rules, replacing those in force; nothing changes when one is bad.
	 * @param settings the rules, in the order of the configuration
	 * @throws IllegalArgumentException naming the property to fix, such as
	 * {@code limiter.web.rules[2].paths[0]}
	 */
	public synchronized void configure(List<Settings> settings) {
		List<Rule> built = new ArrayList<>();
		for (int i = 0; i < settings.size(); i++) {
			built.add(rule(i, settings.get(i)));
		}
		List<Rule> previous = this.rules;
		for (Rule rule : previous) {
			this.operations.unregister(rule.operation().getDescription());
		}
		for (Rule rule : built) {
			this.operations.register(rule.operation());
		}
		this.rules = List.copyOf(built);
	}

	/**
	 * Return whether any rule is in force, so that a request without one costs nothing.
	 * @return whether there are rules
	 */
	public boolean isEmpty() {
		return this.rules.isEmpty();
	}

	/**
	 * Return the rules that match a request, in the order of the configuration.
	 * @param method the request's method, such as {@code GET}
	 * @param path the request's path within the application, as the stack's handler
	 * mapping parsed it
	 * @return the matching rules, empty when none matches
	 */
	public List<Rule> matching(String method, PathContainer path) {
		List<Rule> rules = this.rules;
		List<Rule> matching = null;
		for (Rule rule : rules) {
			if (rule.matches(method, path)) {
				if (matching == null) {
					matching = new ArrayList<>(2);
				}
				matching.add(rule);
			}
		}
		return (matching != null) ? matching : List.of();
	}

	/**
	 * Prepare a request under one rule: its condition, then its key (the rule's
	 * expression, else the caller the request names).
	 * @param rule the rule
	 * @param request the request as the rule's expressions see it, which is also the
	 * stack's own request (listeners write headers to it)
	 * @return the call's handle, or {@code null} when the condition leaves the request to
	 * other rules
	 */
	public CallHandle prepare(Rule rule, SurfaceRequest request) {
		if (rule.condition() != null) {
			RateLimitInvocation invocation = new RateLimitInvocation(rule.operation(), null, new Object[0],
					() -> request);
			if (!rule.condition().test(invocation)) {
				return null;
			}
		}
		// the caller is the surface request's, found only when the key needs it
		return this.pipeline.handle(this.pipeline.prepareRoute(rule.operation(), null, null, request));
	}

	/**
	 * Return whether a decision made during a request makes the rules give back what they
	 * granted it: a refusal by a limit that is not a rule's (a handler's own), since a
	 * call refused by any of its limits counts in none.
	 * @param operation the operation decided
	 * @param decision its decision
	 * @return whether the rules' grants of the request are to be given back
	 */
	public boolean givesBack(RateLimitOperation operation, dev.limiter.Decision decision) {
		return !decision.isAllowed() && !isEmpty() && !isRule(operation);
	}

	/**
	 * Return whether an operation is a rule's, whose refusal a stack answers itself.
	 * @param operation the operation
	 * @return whether it belongs to a rule
	 */
	public boolean isRule(RateLimitOperation operation) {
		for (Rule rule : this.rules) {
			if (rule.operation().getScope().equals(operation.getScope())
					&& rule.operation().getDescription().equals(operation.getDescription())) {
				return true;
			}
		}
		return false;
	}

	private Rule rule(int index, Settings settings) {
		String property = PROPERTY + "[" + index + "]";
		if (settings.paths() == null || settings.paths().isEmpty()) {
			throw new IllegalArgumentException(
					property + ".paths: a rule needs at least one path pattern, such as " + "/api/**");
		}
		List<PathPattern> paths = patterns(property + ".paths", settings.paths());
		List<PathPattern> exclude = patterns(property + ".exclude",
				(settings.exclude() != null) ? settings.exclude() : List.of());
		Set<String> methods = new LinkedHashSet<>();
		List<String> givenMethods = (settings.methods() != null) ? settings.methods() : List.of();
		for (int i = 0; i < givenMethods.size(); i++) {
			String method = (givenMethods.get(i) != null) ? givenMethods.get(i).strip().toUpperCase(Locale.ROOT) : "";
			if (!METHODS.contains(method)) {
				throw new IllegalArgumentException(property + ".methods[" + i + "]: '" + givenMethods.get(i)
						+ "' is not an HTTP method; use GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS or TRACE");
			}
			methods.add(method);
		}
		List<String> limits = (settings.limits() != null) ? settings.limits() : List.of();
		if (limits.isEmpty()) {
			throw new IllegalArgumentException(
					property + ".limits: a rule needs at least one limit, the name of one " + "under limiter.limits");
		}
		for (int i = 0; i < limits.size(); i++) {
			if (!this.resolver.named().containsKey(limits.get(i))) {
				throw new IllegalArgumentException(property + ".limits[" + i + "]: '" + limits.get(i)
						+ "' is not a limit under limiter.limits (limits: " + this.resolver.named().keySet()
						+ "); define limiter.limits." + limits.get(i) + ".threshold and .period, or correct the name");
			}
		}
		KeyExpression key = expression(property, "key", settings.key());
		KeyExpression condition = expression(property, "condition", settings.condition());
		String name = "rule " + index + " " + String.join(",", settings.paths());
		RouteLimitSettings limitSettings = new RouteLimitSettings();
		limitSettings.setName(limits);
		Duration maxWait = settings.maxWait();
		if (maxWait != null && (maxWait.isNegative() || maxWait.compareTo(RateLimitAnnotationParser.MAX_WAIT) > 0)) {
			throw new IllegalArgumentException(property + ".max-wait: " + maxWait.toMillis()
					+ "ms is not a duration between 0 and " + RateLimitAnnotationParser.MAX_WAIT.toSeconds()
					+ "s; set it to how long a refused request may wait for its turn, such as 500ms, or remove it "
					+ "to refuse at once");
		}
		limitSettings.setMaxWait(maxWait);
		AnnotatedOperation operation;
		try {
			operation = this.routes.operation(name, RouteArguments.of(limitSettings, Spelling.SURFACE),
					(key != null) ? settings.key() : "", key, name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(property + ".limits: " + ex.getMessage(), ex);
		}
		return new Rule(paths, exclude, Set.copyOf(methods), operation, condition);
	}

	private static List<PathPattern> patterns(String property, List<String> patterns) {
		List<PathPattern> parsed = new ArrayList<>();
		for (int i = 0; i < patterns.size(); i++) {
			String pattern = patterns.get(i);
			if (pattern == null || pattern.isBlank()) {
				throw new IllegalArgumentException(property + "[" + i + "]: a path pattern must not be blank");
			}
			try {
				parsed.add(PathPatternParser.defaultInstance.parse(pattern.strip()));
			}
			catch (PatternParseException ex) {
				throw new IllegalArgumentException(property + "[" + i + "]: '" + pattern + "' is not a path pattern ("
						+ ex.getMessage() + "); write it as Spring's PathPattern, such as /api/** or /orders/{id}");
			}
		}
		return List.copyOf(parsed);
	}

	private KeyExpression expression(String property, String attribute, String source) {
		if (source == null || source.isBlank()) {
			return null;
		}
		try {
			return KeyExpression.parse(this.parser, this.beanResolver, property, null, source, attribute);
		}
		catch (InvalidRateLimitException ex) {
			throw new IllegalArgumentException(
					property + "." + attribute + ": " + ex.getProblem() + ". " + ex.getFix());
		}
	}

	/**
	 * A rule as configured.
	 *
	 * @param paths the path patterns, at least one
	 * @param exclude the path patterns left alone
	 * @param methods the HTTP methods, every one when empty
	 * @param limits the names of its limits
	 * @param key the key expression, or {@code null} for the caller
	 * @param condition the condition, or {@code null}
	 * @param maxWait how long a refused request may wait for its turn, or {@code null} to
	 * refuse at once
	 */
	public record Settings(List<String> paths, List<String> exclude, List<String> methods, List<String> limits,
			String key, String condition, Duration maxWait) {

	}

	/**
	 * A rule in force.
	 *
	 * @param paths what it matches
	 * @param exclude what it leaves alone
	 * @param methods the methods it limits, every one when empty
	 * @param operation its operation
	 * @param condition its condition, or {@code null}
	 */
	public record Rule(List<PathPattern> paths, List<PathPattern> exclude, Set<String> methods,
			AnnotatedOperation operation, KeyExpression condition) {

		boolean matches(String method, PathContainer path) {
			if (!this.methods.isEmpty() && !this.methods.contains(method)) {
				return false;
			}
			boolean matched = false;
			for (PathPattern pattern : this.paths) {
				if (pattern.matches(path)) {
					matched = true;
					break;
				}
			}
			if (!matched) {
				return false;
			}
			for (PathPattern pattern : this.exclude) {
				if (pattern.matches(path)) {
					return false;
				}
			}
			return true;
		}

	}

}
