package dev.limiter.internal.limits;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.limiter.internal.limits.LimitOverrides.NamedOverride;
import dev.limiter.internal.limits.LimitOverrides.Numbers;

/**
 * Where the overrides an operator sets are kept: in this instance only, or shared by
 * every instance (the Redis store's). Setting an empty override removes it.
 */
public interface OverrideStore {

	/**
	 * Set or remove the override of a named limit.
	 * @param name the limit's name
	 * @param override the override, empty to remove it
	 */
	void setNamed(String name, NamedOverride override);

	/**
	 * Set or remove one caller's numbers under a named limit.
	 * @param name the limit's name
	 * @param key the caller's full key
	 * @param numbers the numbers, empty to remove them
	 */
	void setCaller(String name, String key, Numbers numbers);

	/**
	 * Return whether an override reaches every instance, not only this one.
	 * @return whether overrides are shared
	 */
	boolean isShared();

	/**
	 * Return a store that keeps the overrides in this instance only.
	 * @param overrides the overrides it changes
	 * @return the store
	 */
	static OverrideStore local(LimitOverrides overrides) {
		return new OverrideStore() {

			@Override
			public synchronized void setNamed(String name, NamedOverride override) {
				Map<String, NamedOverride> named = new LinkedHashMap<>(overrides.named());
				if (override.isEmpty()) {
					named.remove(name);
				}
				else {
					named.put(name, override);
				}
				overrides.replace(named, overrides.callers());
			}

			@Override
			public synchronized void setCaller(String name, String key, Numbers numbers) {
				Map<String, Map<String, Numbers>> callers = new LinkedHashMap<>(overrides.callers());
				Map<String, Numbers> byKey = new LinkedHashMap<>(callers.getOrDefault(name, Map.of()));
				if (numbers.isEmpty()) {
					byKey.remove(key);
				}
				else {
					byKey.put(key, numbers);
				}
				callers.put(name, byKey);
				overrides.replace(overrides.named(), callers);
			}

			@Override
			public boolean isShared() {
				return false;
			}

		};
	}

}
