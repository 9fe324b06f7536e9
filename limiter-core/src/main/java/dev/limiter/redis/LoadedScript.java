package dev.limiter.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A rate-limit script read once from the classpath, its SHA-1 computed once: every call
 * reads two final fields, where Spring's {@code DefaultRedisScript} takes a lock to ask
 * its source whether it changed.
 */
final class LoadedScript implements RedisScript<List<Long>> {

	private final String source;

	private final String sha1;

	LoadedScript(String source) {
		this.source = source;
		this.sha1 = DigestUtils.sha1DigestAsHex(source);
	}

	/**
	 * Read a script's source.
	 * @param location its classpath location, such as {@code META-INF/scripts/limits.lua}
	 * @return the source
	 */
	static String read(String location) {
		try (InputStream in = new ClassPathResource(location).getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the rate-limit script " + location, ex);
		}
	}

	@Override
	public String getSha1() {
		return this.sha1;
	}

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public Class<List<Long>> getResultType() {
		return (Class) List.class;
	}

	@Override
	public String getScriptAsString() {
		return this.source;
	}

}
