package dev.limiter.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a reply that Redis sent in time but this JVM has not read yet from a reply that
 * has not come: it waits until every I/O event loop of a Lettuce client has made one more
 * pass over its sockets.
 * <p>
 * A busy or freshly started JVM (JIT compilation, GC, more runnable threads than cores)
 * can leave Redis's answer unread in the socket for longer than the limiter's timeout.
 * That is not an outage: deciding such a call by the failure policy would admit calls
 * that Redis rejected, and let anyone who can load the application switch its limits off.
 * So lateness is judged where it arises, in the event loop that reads the replies: after
 * the loops have caught up, a reply that is still missing had not arrived when the
 * timeout expired.
 */
final class EventLoopCatchUp implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(EventLoopCatchUp.class);

	private final EventLoopGroupProvider provider;

	private final EventLoopGroup group;

	private final List<EventExecutor> loops;

	private EventLoopCatchUp(EventLoopGroupProvider provider, EventLoopGroup group) {
		this.provider = provider;
		this.group = group;
		List<EventExecutor> loops = new ArrayList<>();
		group.iterator().forEachRemaining(loops::add);
		this.loops = List.copyOf(loops);
	}

	/**
	 * Take a share of the event loops of a client's resources, the ones its connections
	 * use.
	 * @param resources the client's resources
	 * @return the catch-up, or {@code null} when the loops cannot be had (the caller then
	 * judges by its timeout alone)
	 */
	static EventLoopCatchUp of(ClientResources resources) {
		try {
			EventLoopGroupProvider provider = resources.eventLoopGroupProvider();
			return new EventLoopCatchUp(provider, provider.allocate(Transports.eventLoopGroupClass()));
		}
		catch (RuntimeException | LinkageError ex) {
			logger.debug("Lettuce's event loops are not available; a late reply counts as a timeout", ex);
			return null;
		}
	}

	/**
	 * Return a future that completes once every event loop has read what had reached its
	 * sockets when this method was called.
	 * @return the future, completed on the last loop to catch up
	 */
	CompletableFuture<Void> caughtUp() {
		CompletableFuture<Void> caughtUp = new CompletableFuture<>();
		if (this.loops.isEmpty()) {
			caughtUp.complete(null);
			return caughtUp;
		}
		AtomicInteger behind = new AtomicInteger(this.loops.size());
		for (EventExecutor loop : this.loops) {
			// Scheduled from inside the loop: a loop moves scheduled tasks to its queue
			// only after its next pass over the sockets, so the marker cannot run before
			// the replies that had already arrived are read.
			loop.execute(() -> loop.schedule(() -> {
				if (behind.decrementAndGet() == 0) {
					caughtUp.complete(null);
				}
			}, 0, TimeUnit.NANOSECONDS));
		}
		return caughtUp;
	}

	/**
	 * Wait until every event loop has read what had reached its sockets when this method
	 * was called.
	 * @param timeoutNanos the longest wait
	 * @return whether every loop caught up in time
	 */
	boolean await(long timeoutNanos) {
		try {
			caughtUp().get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (TimeoutException | ExecutionException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public void close() {
		this.provider.release(this.group, 0, 0, TimeUnit.SECONDS);
	}

}
