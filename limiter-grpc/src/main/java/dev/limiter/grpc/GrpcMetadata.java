package dev.limiter.grpc;

import io.grpc.Metadata;

/**
 * A call's metadata as key expressions read it: {@code #metadata.get('x-tenant')} gives
 * the first value of an ASCII key, or {@code null}.
 */
public final class GrpcMetadata {

	private final Metadata metadata;

	GrpcMetadata(Metadata metadata) {
		this.metadata = metadata;
	}

	/**
	 * Return the value of an ASCII metadata key.
	 * @param key the key, such as {@code x-tenant}
	 * @return its last value, or {@code null} when the call has none
	 */
	public String get(String key) {
		return this.metadata.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
	}

	@Override
	public String toString() {
		return this.metadata.toString();
	}

}
