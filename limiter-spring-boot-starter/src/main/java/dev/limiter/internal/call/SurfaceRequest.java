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
	 * Return who calls: the authenticated principal, else the client's address, bounded
	 * ({@code u:alice}, {@code ip:10.0.0.1}).
	 * @return the caller part of the default key
	 */
	String caller();

	/**
	 * Return the value of a variable of {@link #VARIABLES}.
	 * @param name the variable's name
	 * @return its value, or {@code null} when this surface has none of that name
	 */
	Object variable(String name);

}
