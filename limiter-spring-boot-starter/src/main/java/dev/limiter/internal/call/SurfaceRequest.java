package dev.limiter.internal.call;

/**
 * The request of a surface that is not a web request, such as a gRPC call: who calls, for
 * the default key of its methods, and the variables its key expressions read (gRPC's
 * {@code #metadata}).
 */
public interface SurfaceRequest {

	/**
	 * The variables a surface may give its key expressions, whatever the surface: gRPC's
	 * {@code #metadata}, the HTTP headers of a GraphQL request as {@code #headers}.
	 */
	java.util.Set<String> VARIABLES = java.util.Set.of("metadata", "headers");

	/**
	 * Return who calls, as {@code dev.limiter.internal.key.Callers} finds it: the
	 * authenticated principal, else the client's address, bounded ({@code u:alice},
	 * {@code ip:10.0.0.1}), else {@code all}.
	 * @return the caller part of the default key
	 */
	String caller();

	/**
	 * Return whether the call names its caller itself (a chat call's advisor context), so
	 * that no key resolver is asked in its place.
	 * @return whether {@link #caller()} is the call's own
	 */
	default boolean namesCaller() {
		return false;
	}

	/**
	 * Return a caller found by a key resolver, with what the surface keys beside it (a
	 * chat call's model, where budgets are per model).
	 * @param caller the caller the resolver gave
	 * @return the caller part of the key
	 */
	default String qualified(String caller) {
		return caller;
	}

	/**
	 * Return the value of a variable of {@link #VARIABLES}.
	 * @param name the variable's name
	 * @return its value, or {@code null} when this surface has none of that name
	 */
	Object variable(String name);

}
