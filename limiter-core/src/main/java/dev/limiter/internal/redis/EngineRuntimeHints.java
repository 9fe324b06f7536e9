package dev.limiter.internal.redis;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

import dev.limiter.Decision;

/**
 * What the engine reads reflectively or as resources, for AOT processing and native
 * images: the Lua scripts it composes, and the methods of {@link Decision} that
 * {@code Decisions} reaches through method handles. It sits with the Redis transport, the
 * one part of the engine that uses Spring.
 */
final class EngineRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.resources().registerPattern("META-INF/scripts/*.lua");
		hints.resources().registerPattern("META-INF/scripts/algorithms/*.lua");
		hints.reflection().registerType(Decision.class, MemberCategory.INVOKE_DECLARED_METHODS);
		hints.reflection().registerType(Decision.Grant.class, MemberCategory.INVOKE_DECLARED_METHODS);
	}

}
