package dev.limiter.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The one SHA-256 of Limiter, which bounds key parts too long or too odd to keep as they
 * are: the engine's hash tags and the starter's key parts encode it each their own way.
 */
public final class Digests {

	private Digests() {
	}

	/**
	 * Return the SHA-256 of a text's UTF-8 bytes.
	 * @param text the text
	 * @return the 32-byte digest
	 */
	public static byte[] sha256(String text) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

}
