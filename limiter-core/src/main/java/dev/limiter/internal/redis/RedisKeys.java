package dev.limiter.internal.redis;

import dev.limiter.Limit;
import dev.limiter.internal.Digests;
import dev.limiter.internal.algorithm.AlgorithmDescriptor;

/**
 * Builds the Redis keys of every limit's state.
 * <p>
 * A key is {@code <prefix>{<tag>}:w<period ms>} for a sliding-window log, followed by
 * {@code :b<slices>} for sliding buckets and {@code :t} for a token bucket. The threshold
 * is not in the key, so a limit whose threshold changes keeps its count (the keys of
 * versions before 1.0 carried it: {@code <prefix>{<tag>}:<threshold>:<period ms>}, and
 * the {@code w} keeps the two layouts apart). Every key of one caller key shares the hash
 * tag, so one script call touches one Redis Cluster slot. The tag is the caller key with
 * {@code %}, <code>{</code> and <code>}</code> percent-encoded, so nothing in it can end
 * the tag early and move the key to another slot; a caller key longer than
 * {@value #MAX_TAG_LENGTH} characters is replaced by its SHA-256, which keeps keys
 * bounded. Both forms are injective, so two caller keys never share a log.
 */
public final class RedisKeys {

	/** The longest caller key kept as it is in the hash tag. */
	public static final int MAX_TAG_LENGTH = 200;

	private static final char[] HEX = "0123456789abcdef".toCharArray();

	private RedisKeys() {
	}

	/**
	 * Return the Redis key of the state of one limit for one caller key.
	 * @param prefix the key prefix, such as {@code limiter:}
	 * @param key the caller key
	 * @param limit the limit
	 * @return the Redis key
	 */
	public static String key(String prefix, String key, Limit limit) {
		return prefix + "{" + tag(key) + "}:w" + limit.period().toMillis()
				+ AlgorithmDescriptor.of(limit.algorithm()).keySuffix(limit);
	}

	/**
	 * Return the hash tag for a caller key.
	 * @param key the caller key
	 * @return the tag, free of braces and at most 200 characters
	 */
	public static String tag(String key) {
		if (key.length() > MAX_TAG_LENGTH) {
			return "%H" + sha256(key);
		}
		int first = firstSpecial(key);
		if (first < 0) {
			return key;
		}
		StringBuilder tag = new StringBuilder(key.length() + 8).append(key, 0, first);
		for (int i = first; i < key.length(); i++) {
			char c = key.charAt(i);
			switch (c) {
				case '%' -> tag.append("%25");
				case '{' -> tag.append("%7B");
				case '}' -> tag.append("%7D");
				default -> tag.append(c);
			}
		}
		return (tag.length() > MAX_TAG_LENGTH) ? "%H" + sha256(key) : tag.toString();
	}

	/**
	 * Return the Redis Cluster slot of every key of a caller key: CRC16 of its hash tag,
	 * modulo 16384.
	 * @param key the caller key
	 * @return the slot
	 */
	public static int slot(String key) {
		byte[] tag = tag(key).getBytes(java.nio.charset.StandardCharsets.UTF_8);
		int crc = 0;
		for (byte b : tag) {
			crc ^= (b & 0xFF) << 8;
			for (int i = 0; i < 8; i++) {
				crc = ((crc & 0x8000) != 0) ? ((crc << 1) ^ 0x1021) : (crc << 1);
			}
		}
		return (crc & 0xFFFF) % 16384;
	}

	private static int firstSpecial(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == '%' || c == '{' || c == '}') {
				return i;
			}
		}
		return -1;
	}

	private static String sha256(String key) {
		byte[] digest = Digests.sha256(key);
		char[] hex = new char[digest.length * 2];
		for (int i = 0; i < digest.length; i++) {
			hex[2 * i] = HEX[(digest[i] >> 4) & 0xF];
			hex[2 * i + 1] = HEX[digest[i] & 0xF];
		}
		return new String(hex);
	}

}
