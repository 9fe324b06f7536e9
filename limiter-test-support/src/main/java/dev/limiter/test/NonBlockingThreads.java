package dev.limiter.test;

import java.util.function.Predicate;

import reactor.blockhound.BlockHound;

/**
 * Installs BlockHound so that any blocking call on the given threads fails with
 * {@code BlockingOperationError}: once per JVM, so a test class that installs it runs in
 * a JVM of its own.
 */
public final class NonBlockingThreads {

	/**
	 * Netty's request threads (Reactor Netty's server and client) and Lettuce's event
	 * loops.
	 */
	public static final Predicate<Thread> NETTY_AND_LETTUCE = (thread) -> thread.getName().startsWith("reactor-http-")
			|| (thread.getName().startsWith("lettuce-") && thread.getName().contains("EventLoop"));

	private NonBlockingThreads() {
	}

	/**
	 * Watch the given threads, besides those Reactor's own integration names.
	 * @param watched the threads on which nothing may block
	 */
	public static void watch(Predicate<Thread> watched) {
		// install(...) loads the integrations that Reactor and Netty ship: Netty's allows
		// the short locks inside its task queues and buffer pools, which park only when
		// two threads meet there. A bare builder lacks them, and under load a
		// BlockingOperationError thrown inside one of those locks lost a task: a gateway
		// stopped answering, a client's shutdown waited forever.
		BlockHound.install((builder) -> builder
			// Lettuce counts a command's writers under a short lock of the same kind.
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
			.nonBlockingThreadPredicate((current) -> current.or(watched)));
	}

}
