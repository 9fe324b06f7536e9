package dev.limiter.internal.web;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

/**
 * The serialized bodies of the problems a web stack answers rejections with, made once
 * per distinct problem (the same limit, path, message and seconds to wait) and written
 * again for the next rejections with the same problem: under a flood of rejections the
 * problems repeat, so most rejections write bytes already made.
 *
 * @param <B> what a serialized body is on the stack
 */
public final class ProblemBodies<B> {

	/** The most bodies kept; they are dropped all at once when there are more. */
	private static final int MAX_BODIES = 1024;

	private final Map<Key, B> bodies = new ConcurrentHashMap<>();

	/**
	 * Return the body of a problem, serialized on the first call for an equal problem.
	 * @param problem the problem
	 * @param contentType the type it is written as
	 * @param serializer serializes the problem
	 * @param <E> what the serializer may throw
	 * @return the body
	 * @throws E if the serializer fails
	 */
	public <E extends Exception> B get(ProblemDetail problem, MediaType contentType, Serializer<B, E> serializer)
			throws E {
		B body = this.bodies.get(new Key(problem, contentType));
		if (body == null) {
			body = serializer.serialize(problem);
			if (this.bodies.size() >= MAX_BODIES) {
				this.bodies.clear();
			}
			// A copy of the problem as the key: the caller's stays the caller's.
			this.bodies.put(new Key(copy(problem), contentType), body);
		}
		return body;
	}

	private static ProblemDetail copy(ProblemDetail problem) {
		ProblemDetail copy = ProblemDetail.forStatus(problem.getStatus());
		copy.setType(problem.getType());
		copy.setTitle(problem.getTitle());
		copy.setDetail(problem.getDetail());
		copy.setInstance(problem.getInstance());
		if (problem.getProperties() != null) {
			problem.getProperties().forEach(copy::setProperty);
		}
		return copy;
	}

	/**
	 * Serializes a problem.
	 *
	 * @param <B> the serialized body
	 * @param <E> what serializing may throw
	 */
	@FunctionalInterface
	public interface Serializer<B, E extends Exception> {

		/**
		 * Serialize a problem.
		 * @param problem the problem
		 * @return its body
		 * @throws E if it cannot be serialized
		 */
		B serialize(ProblemDetail problem) throws E;

	}

	/** A problem and the type it is written as. */
	private record Key(ProblemDetail problem, MediaType contentType) {

	}

}
