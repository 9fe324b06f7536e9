package dev.limiter.internal.call;

import java.lang.reflect.Method;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

import dev.limiter.internal.algorithm.AlgorithmDescriptor;
import dev.limiter.Limit;
import dev.limiter.call.RateLimitOperation;
import dev.limiter.internal.limits.LocalLimit;
import dev.limiter.key.RateLimitKeys;

/**
 * The operation of one annotated method with what prepares its calls: the key expression,
 * the condition, the plans and the messages, which stay inside Limiter.
 */
public final class AnnotatedOperation implements RateLimitOperation {

	private final Method method;

	private final String scope;

	private final String description;

	private final List<Limit> limits;

	private final boolean holdsSlots;

	private final List<String> messages;

	private final long permits;

	private final String keySource;

	private final KeyExpression keyExpression;

	private KeyExpression condition;

	private List<Class<? extends Throwable>> refundOn = List.of();

	private List<Limit> enforced;

	private List<Limit> shadowed = List.of();

	private java.time.Duration maxWait = java.time.Duration.ZERO;

	private KeyExpression charge;

	AnnotatedOperation(Method method, String scope, String description, List<Limit> limits, List<String> messages,
			long permits, String keySource, KeyExpression keyExpression) {
		this.method = method;
		this.scope = scope;
		this.description = description;
		this.limits = List.copyOf(limits);
		this.holdsSlots = AlgorithmDescriptor.anyHoldsSlots(this.limits);
		this.messages = List.copyOf(messages);
		this.permits = permits;
		this.keySource = keySource;
		this.keyExpression = keyExpression;
		this.enforced = this.limits;
	}

	/**
	 * Complete the operation with what decides whether and how a call counts; called once
	 * by the parser, before the operation is shared.
	 */
	AnnotatedOperation withOutcomes(KeyExpression condition, List<Class<? extends Throwable>> refundOn,
			List<Boolean> shadows) {
		this.condition = condition;
		this.refundOn = List.copyOf(refundOn);
		List<Limit> enforced = new java.util.ArrayList<>();
		List<Limit> shadowed = new java.util.ArrayList<>();
		for (int i = 0; i < this.limits.size(); i++) {
			// an adaptive limit is decided by its gate, never by the store
			if (this.limits.get(i).algorithm().isStored()) {
				(shadows.get(i) ? shadowed : enforced).add(this.limits.get(i));
			}
		}
		this.enforced = List.copyOf(enforced);
		this.shadowed = List.copyOf(shadowed);
		return this;
	}

	private KeyExpression plan;

	private Map<String, AnnotatedOperation> plans = Map.of();

	/**
	 * Return this operation with other numbers for its limits (the same limits, in the
	 * same order, shadowed alike), such as those an operator set at run time; its plans
	 * are left out, the call's plan having been chosen.
	 * @param limits the limits
	 * @return the operation
	 */
	AnnotatedOperation withLimits(List<Limit> limits) {
		List<Boolean> shadows = new java.util.ArrayList<>(this.limits.size());
		for (Limit limit : this.limits) {
			shadows.add(this.shadowed.contains(limit));
		}
		return new AnnotatedOperation(this.method, this.scope, this.description, limits, this.messages, this.permits,
				this.keySource, this.keyExpression)
			.withOutcomes(this.condition, this.refundOn, shadows)
			.withMaxWait(this.maxWait)
			.withCharge(this.charge)
			.withGate(this.gate);
	}

	private LocalLimit.Gate gate;

	/** Set the gate of the operation's adaptive limit; called once by the parser. */
	AnnotatedOperation withGate(LocalLimit.Gate gate) {
		this.gate = gate;
		return this;
	}

	/**
	 * Return the gate of the operation's adaptive limit, which each call passes before
	 * the store is asked.
	 * @return the gate, or {@code null} without an adaptive limit
	 */
	public LocalLimit.Gate getGate() {
		return this.gate;
	}

	/** Set what a call turns out to cost; called once by the parser. */
	AnnotatedOperation withCharge(KeyExpression charge) {
		this.charge = charge;
		return this;
	}

	/**
	 * Return the expression that gives a call's real cost from its result.
	 * @return the charge, or {@code null} when calls cost their permits
	 */
	KeyExpression getCharge() {
		return this.charge;
	}

	/**
	 * Return the charge expression as written.
	 * @return the expression, or {@code null} when calls cost their permits
	 */
	public String getChargeSource() {
		return (this.charge != null) ? this.charge.source() : null;
	}

	/** Set how a call picks its plan; called once by the parser. */
	AnnotatedOperation withPlans(KeyExpression plan, Map<String, AnnotatedOperation> plans) {
		this.plan = plan;
		this.plans = Map.copyOf(plans);
		return this;
	}

	KeyExpression getPlan() {
		return this.plan;
	}

	/**
	 * Return the operation of a plan: the same method with the plan's numbers.
	 * @param plan the plan's name, or {@code null}
	 * @return the plan's operation, or this one (the limits' own numbers) for a plan the
	 * configuration does not define
	 */
	public AnnotatedOperation forPlan(String plan) {
		AnnotatedOperation planned = (plan != null) ? this.plans.get(plan) : null;
		return (planned != null) ? planned : this;
	}

	/**
	 * Return the plans the configuration defines for this method.
	 * @return the plans' operations by name, empty without plans
	 */
	public Map<String, AnnotatedOperation> getPlans() {
		return this.plans;
	}

	/** Set the longest wait for a turn; called once by the parser. */
	AnnotatedOperation withMaxWait(java.time.Duration maxWait) {
		this.maxWait = maxWait;
		return this;
	}

	/**
	 * Return how long a call that would be admitted within this time waits instead of
	 * being rejected.
	 * @return the longest wait, zero for none
	 */
	@Override
	public java.time.Duration getMaxWait() {
		return this.maxWait;
	}

	/**
	 * Return whether a rejection is worth waiting for: decided by the store (not by a
	 * failure policy) and admitted again within the longest wait.
	 * @param decision the rejection
	 * @return whether the call waits for its retry-after and asks again
	 */
	public boolean waitsFor(dev.limiter.Decision decision) {
		return !this.maxWait.isZero() && !decision.isAllowed() && !decision.isDegraded()
				&& decision.retryAfter().compareTo(this.maxWait) <= 0;
	}

	/**
	 * Return whether the limits and the key of a call can be known before its arguments
	 * exist: no key expression, condition or plan reads them.
	 * @return whether a call can be decided without its arguments
	 */
	public boolean decidesWithoutArguments() {
		return this.keyExpression == null && this.condition == null && this.plan == null && !this.enforced.isEmpty();
	}

	/**
	 * Return the indexes of the method's parameters that its key expression, condition
	 * and plan read: a call whose arguments at those indexes are known can be prepared
	 * before the others exist.
	 * @return the indexes, empty when none is read
	 */
	public BitSet argumentsRead() {
		BitSet read = new BitSet();
		for (KeyExpression expression : new KeyExpression[] { this.keyExpression, this.condition, this.plan }) {
			if (expression != null) {
				expression.argumentsRead(read);
			}
		}
		return read;
	}

	/**
	 * Return the name under which the callers a limit of this operation rejects are
	 * ranked: per operation, so that two methods whose unnamed limits are all called
	 * {@code default} never share a ranking (methods that share a named limit share its
	 * scope, {@code n:<name>}, and so its ranking).
	 * @param limit a limit of this operation
	 * @return the ranking's name, such as {@code n:search/search}
	 */
	public String ranking(Limit limit) {
		return this.scope + "/" + limit.name();
	}

	/**
	 * Return whether a call of this operation holds slots in flight, to give back when it
	 * ends.
	 * @return whether a limit counts calls in flight
	 */
	public boolean holdsSlots() {
		return this.holdsSlots || this.gate != null;
	}

	/**
	 * Return whether a call of this operation holds slots in the store, whose end talks
	 * to it; a slot of an adaptive limit is given back in memory.
	 * @return whether a stored limit counts calls in flight
	 */
	public boolean storeHoldsSlots() {
		return this.holdsSlots;
	}

	/**
	 * Return the limits that reject calls.
	 * @return the enforced limits, possibly none
	 */
	@Override
	public List<Limit> getEnforcedLimits() {
		return this.enforced;
	}

	/**
	 * Return the limits in shadow mode: they decide, but a call they would reject runs.
	 * @return the shadowed limits, possibly none
	 */
	@Override
	public List<Limit> getShadowLimits() {
		return this.shadowed;
	}

	/**
	 * Return the key under which the shadowed limits of a call count: the call's own key
	 * when no limit is enforced, so that a limit tried in shadow mode keeps its counts
	 * once it is enforced, otherwise a key apart ({@link RateLimitKeys#shadow}), since a
	 * shadowed limit with an enforced limit's window would count the enforced calls and
	 * add its own to them.
	 * @param key the call's key
	 * @return the key of its shadowed limits
	 */
	public String shadowKey(String key) {
		return this.enforced.isEmpty() ? key : RateLimitKeys.shadow(key);
	}

	/**
	 * Return whether a limit of this operation is in shadow mode.
	 * @param limit the limit
	 * @return whether it only watches
	 */
	public boolean isShadow(Limit limit) {
		return !this.shadowed.isEmpty() && this.shadowed.contains(limit);
	}

	/**
	 * Return whether a call that ended with an exception gives its permits back.
	 * @param failure the exception
	 * @return whether it is one of the annotation's {@code refundOn}
	 */
	@Override
	public boolean refundsOn(Throwable failure) {
		for (Class<? extends Throwable> type : this.refundOn) {
			if (type.isInstance(failure)) {
				return true;
			}
		}
		return false;
	}

	KeyExpression getCondition() {
		return this.condition;
	}

	/**
	 * Return the annotated method.
	 * @return the method, or {@code null} for a gateway route's limits
	 */
	@Override
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Return what the operation's counters belong to, built once: the first part of every
	 * key of its calls. It is the limit's name when every limit of the method carries the
	 * same {@code name} (methods that share a name share its counters), otherwise the
	 * method, so that two limited methods never count on one key.
	 * @return the scope, such as {@code n:search} or {@code m:com.example.Mailer.send}
	 */
	@Override
	public String getScope() {
		return this.scope;
	}

	/**
	 * Return the key of one call: the scope and who calls.
	 * @param caller who calls, such as {@code u:alice}, from the key expression or the
	 * key resolver
	 * @return the key
	 */
	public String key(String caller) {
		return RateLimitKeys.key(this.scope, caller);
	}

	/**
	 * Return the method as shown in messages, such as
	 * {@code com.example.OrderController.order(String)}.
	 * @return the description
	 */
	@Override
	public String getDescription() {
		return this.description;
	}

	/**
	 * Return the limits, in the order of the annotations (class first).
	 * @return the limits
	 */
	@Override
	public List<Limit> getLimits() {
		return this.limits;
	}

	/**
	 * Return the permits one call takes.
	 * @return the permits
	 */
	@Override
	public long getPermits() {
		return this.permits;
	}

	/**
	 * Return the key expression shared by the annotations, empty for the default key.
	 * @return the key expression
	 */
	@Override
	public String getKeySource() {
		return this.keySource;
	}

	KeyExpression getKeyExpression() {
		return this.keyExpression;
	}

	/**
	 * Return the message of the annotation that declared a limit.
	 * @param limit a limit of this operation, such as the one a decision names
	 * @return the message, empty for the standard one
	 */
	public String getMessage(Limit limit) {
		for (int i = 0; i < this.limits.size(); i++) {
			if (this.limits.get(i).equals(limit)) {
				return this.messages.get(i);
			}
		}
		return "";
	}

	@Override
	public String toString() {
		return this.description + " " + this.limits;
	}

}
