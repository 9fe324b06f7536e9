package dev.limiter.key;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Base64;
import java.util.StringJoiner;
import java.util.regex.Pattern;

import org.springframework.util.StringUtils;

import dev.limiter.internal.Digests;

/**
 * Helpers that keep the parts of a rate-limit key bounded and unambiguous.
 */
public final class RateLimitKeys {

	/** The longest part kept as it is; longer parts are replaced by their hash. */
	public static final int MAX_PART_LENGTH = 64;

	private static final Pattern MULTIPLE_SLASHES = Pattern.compile("/{2,}");

	private RateLimitKeys() {
	}

	/**
	 * Return a part of a key that a client may control (a user name, a URI) bounded in
	 * size: kept as it is when short and free of control characters and {@code ':'},
	 * otherwise replaced by {@code #} and the URL-safe Base64 of its SHA-256. The result
	 * has at most {@value #MAX_PART_LENGTH} characters and never contains {@code ':'}, so
	 * parts joined with {@code ':'} stay unambiguous; braces are left to the store, which
	 * escapes them.
	 * @param part the part
	 * @return the bounded part
	 */
	public static String bounded(String part) {
		if (part == null) {
			return "null";
		}
		if (part.length() <= MAX_PART_LENGTH && isPlain(part)) {
			return part;
		}
		return "#" + sha256(part);
	}

	/**
	 * Return the key of one call: what its counters belong to, then who calls. The one
	 * place a key is joined, for methods and routes alike.
	 * @param scope the scope, such as {@code n:search} or {@code r:orders}
	 * @param caller who calls, already bounded, such as {@code u:alice}
	 * @return the key
	 */
	public static String key(String scope, String caller) {
		return scope + ":" + caller;
	}

	/**
	 * Return the key under which the limits in shadow mode of a call count: apart from
	 * the enforced limits' key, since a limit's counters are per window, and a shadow
	 * limit with an enforced limit's period would count the enforced limit's calls and
	 * add its own to them. No call's own key starts with {@code s:}.
	 * @param key the key of the call, such as {@code n:search:u:alice}
	 * @return the key of its shadowed limits, such as {@code s:n:search:u:alice}
	 */
	public static String shadow(String key) {
		return "s:" + key;
	}

	/**
	 * Return the scope of a rate-limited method called on an object of a class: the class
	 * and the method's name, and its parameter types when the class has several methods
	 * of that name, so that two classes that inherit one method, or two overloads, never
	 * share a quota.
	 * @param method the method
	 * @param targetClass the class of the object the method is called on
	 * @return the method key, such as {@code m:com.example.Mailer.send} or
	 * {@code m:com.example.Mailer.send(java.lang.String,int)}
	 */
	public static String methodKey(Method method, Class<?> targetClass) {
		String key = "m:" + targetClass.getName() + "." + method.getName();
		int sameName = 0;
		for (Method candidate : targetClass.getMethods()) {
			sameName += candidate.getName().equals(method.getName()) ? 1 : 0;
		}
		for (Method candidate : targetClass.getDeclaredMethods()) {
			sameName += (candidate.getName().equals(method.getName()) && !Modifier.isPublic(candidate.getModifiers()))
					? 1 : 0;
		}
		if (sameName <= 1) {
			return key;
		}
		StringJoiner parameters = new StringJoiner(",", "(", ")");
		for (Class<?> type : method.getParameterTypes()) {
			parameters.add(type.getName());
		}
		return key + parameters;
	}

	/**
	 * Return the caller of a web request: the principal's name ({@code u:}) when there is
	 * one, otherwise the client address ({@code ip:}), both bounded.
	 * @param principalName the principal's name, or {@code null}
	 * @param address the client address
	 * @return the caller part of the key, such as {@code u:alice}
	 */
	public static String caller(String principalName, String address) {
		if (principalName != null && !principalName.isEmpty()) {
			return "u:" + bounded(principalName);
		}
		return "ip:" + bounded(address);
	}

	/**
	 * Return a decoded request path without matrix parameters in one spelling: dot
	 * segments resolved, double and trailing slashes removed, so that no other spelling
	 * of one path is a fresh quota.
	 * @param path the decoded path within the application
	 * @return the path, such as {@code /orders/42}
	 */
	public static String onePath(String path) {
		String clean = MULTIPLE_SLASHES.matcher(StringUtils.cleanPath(path)).replaceAll("/");
		return (clean.length() > 1 && clean.endsWith("/")) ? clean.substring(0, clean.length() - 1) : clean;
	}

	private static boolean isPlain(String part) {
		if (part.isEmpty() || part.charAt(0) == '#') {
			return false;
		}
		for (int i = 0; i < part.length(); i++) {
			char c = part.charAt(i);
			if (c == ':' || Character.isISOControl(c)) {
				return false;
			}
		}
		return true;
	}

	private static String sha256(String part) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(Digests.sha256(part));
	}

}
