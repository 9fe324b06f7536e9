package dev.limiter.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy between the application and a real server, on a free loopback port, that
 * slows, holds and breaks the traffic under the test's control: latency (fixed and
 * jittered, order kept), a bandwidth cap, a blackhole (every byte held, nothing closed,
 * as a partition looks to TCP), a reset of every connection, and a reset that loses the
 * reply to a chosen request after that request reached the server. {@link #recover()}
 * ends every fault and delivers what was held.
 * <p>
 * Each direction of each connection has a reader that stamps what it reads with its
 * delivery time and a writer that delivers it then, so latency delays traffic without
 * serializing pipelined requests.
 */
public final class FaultProxy implements AutoCloseable {

	private static final int CHUNK = 16 * 1024;

	private final String targetHost;

	private final int targetPort;

	private final ServerSocket listener;

	private final List<Link> links = new CopyOnWriteArrayList<>();

	private final Object faults = new Object();

	private final AtomicLong forwarded = new AtomicLong();

	private volatile long latencyNanos;

	private volatile long jitterNanos;

	private volatile long bytesPerSecond;

	private volatile boolean blackholed;

	private volatile String resetOnReplyTo;

	private volatile boolean closed;

	private FaultProxy(String targetHost, int targetPort) {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		try {
			this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "fault-proxy-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Start a proxy to a server.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the proxy, forwarding faithfully
	 */
	public static FaultProxy to(String host, int port) {
		return new FaultProxy(host, port);
	}

	/**
	 * Start a proxy to a Redis server.
	 * @param redis the server
	 * @return the proxy, forwarding faithfully
	 */
	public static FaultProxy to(RedisServer redis) {
		return to(redis.host(), redis.port());
	}

	/**
	 * Return the host the application connects to.
	 * @return the loopback address
	 */
	public String host() {
		return this.listener.getInetAddress().getHostAddress();
	}

	/**
	 * Return the port the application connects to.
	 * @return the proxy's port
	 */
	public int port() {
		return this.listener.getLocalPort();
	}

	/**
	 * Delay every byte, in both directions, by a fixed time plus a uniform random part;
	 * bytes keep their order.
	 * @param fixed the delay every byte gets
	 * @param jitter the most added at random, zero for none
	 */
	public void latency(Duration fixed, Duration jitter) {
		this.latencyNanos = fixed.toNanos();
		this.jitterNanos = jitter.toNanos();
	}

	/**
	 * Cap the bytes per second of each direction of each connection.
	 * @param bytesPerSecond the cap, zero for none
	 */
	public void bandwidth(long bytesPerSecond) {
		this.bytesPerSecond = bytesPerSecond;
	}

	/**
	 * Hold every byte from now on, in both directions, without closing anything: requests
	 * are not answered until {@link #recover()}, as in a partition that heals.
	 */
	public void blackhole() {
		this.blackholed = true;
	}

	/**
	 * Lose the reply to the next request that contains a text: the request reaches the
	 * server, and the next bytes the server sends on that connection are dropped and the
	 * connection reset.
	 * @param fragment text of the request, such as {@code "EVALSHA"}
	 */
	public void resetOnReplyTo(String fragment) {
		this.resetOnReplyTo = fragment;
	}

	/**
	 * Reset every open connection (a TCP RST to both ends); new connections are served.
	 */
	public void resetConnections() {
		for (Link link : this.links) {
			link.reset();
		}
	}

	/**
	 * End every fault: no latency, no cap, and the held bytes delivered.
	 */
	public void recover() {
		this.latencyNanos = 0;
		this.jitterNanos = 0;
		this.bytesPerSecond = 0;
		this.resetOnReplyTo = null;
		synchronized (this.faults) {
			this.blackholed = false;
			this.faults.notifyAll();
		}
	}

	/**
	 * Return how many connections are open through the proxy.
	 * @return the number of connections
	 */
	public int connections() {
		return this.links.size();
	}

	/**
	 * Return how many bytes the proxy delivered, both directions together.
	 * @return the number of bytes
	 */
	public long forwardedBytes() {
		return this.forwarded.get();
	}

	@Override
	public void close() {
		this.closed = true;
		recover();
		try {
			this.listener.close();
		}
		catch (IOException ex) {
			// Closing anyway.
		}
		for (Link link : this.links) {
			link.close();
		}
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.listener.accept();
				Socket server = new Socket();
				try {
					server.connect(new InetSocketAddress(this.targetHost, this.targetPort), 5_000);
				}
				catch (IOException ex) {
					client.setSoLinger(true, 0);
					client.close();
					continue;
				}
				client.setTcpNoDelay(true);
				server.setTcpNoDelay(true);
				Link link = new Link(client, server);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				// The listener closed, or one connection failed: the next accept says
				// which.
			}
		}
	}

	private long deliveryTime(long arrived, long previous) {
		long jitter = this.jitterNanos;
		long delay = this.latencyNanos + ((jitter > 0) ? ThreadLocalRandom.current().nextLong(jitter) : 0);
		return Math.max(previous, arrived + delay);
	}

	private void awaitOpen() throws InterruptedException {
		synchronized (this.faults) {
			while (this.blackholed && !this.closed) {
				this.faults.wait();
			}
		}
	}

	private static void sleepUntil(long nanoTime) {
		long left;
		while ((left = nanoTime - System.nanoTime()) > 0) {
			LockSupport.parkNanos(left);
		}
	}

	/** One proxied connection: the two sockets and a pump each way. */
	private final class Link {

		private final Socket client;

		private final Socket server;

		/** Whether the next reply on this connection is lost. */
		private volatile boolean armed;

		Link(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		void start() throws IOException {
			pump("up", this.client.getInputStream(), this.server.getOutputStream(), false);
			pump("down", this.server.getInputStream(), this.client.getOutputStream(), true);
		}

		private void pump(String direction, InputStream in, OutputStream out, boolean replies) {
			BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
			Thread reader = new Thread(() -> read(in, queue), "fault-proxy-" + direction + "-read");
			Thread writer = new Thread(() -> write(queue, out, replies), "fault-proxy-" + direction + "-write");
			reader.setDaemon(true);
			writer.setDaemon(true);
			reader.start();
			writer.start();
		}

		private void read(InputStream in, BlockingQueue<Chunk> queue) {
			byte[] buffer = new byte[CHUNK];
			long previous = 0;
			try {
				int n;
				while ((n = in.read(buffer)) >= 0) {
					previous = deliveryTime(System.nanoTime(), previous);
					queue.add(new Chunk(Arrays.copyOf(buffer, n), previous));
				}
			}
			catch (IOException ex) {
				// Reset or closed: the writer ends with the end marker.
			}
			queue.add(Chunk.END);
		}

		private void write(BlockingQueue<Chunk> queue, OutputStream out, boolean replies) {
			try {
				while (true) {
					Chunk chunk = queue.take();
					if (chunk == Chunk.END) {
						break;
					}
					awaitOpen();
					sleepUntil(chunk.deliverAt());
					if (replies && this.armed) {
						reset();
						return;
					}
					String fragment = FaultProxy.this.resetOnReplyTo;
					if (!replies && fragment != null
							&& new String(chunk.bytes(), StandardCharsets.ISO_8859_1).contains(fragment)) {
						FaultProxy.this.resetOnReplyTo = null;
						this.armed = true;
					}
					out.write(chunk.bytes());
					out.flush();
					FaultProxy.this.forwarded.addAndGet(chunk.bytes().length);
					long cap = FaultProxy.this.bytesPerSecond;
					if (cap > 0) {
						LockSupport.parkNanos(chunk.bytes().length * 1_000_000_000L / cap);
					}
				}
			}
			catch (IOException | InterruptedException ex) {
				// Reset or closed.
			}
			close();
		}

		void reset() {
			try {
				this.client.setSoLinger(true, 0);
				this.server.setSoLinger(true, 0);
			}
			catch (IOException ex) {
				// Already closed.
			}
			close();
		}

		void close() {
			FaultProxy.this.links.remove(this);
			closeQuietly(this.client);
			closeQuietly(this.server);
		}

		private static void closeQuietly(Socket socket) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// Closing anyway.
			}
		}

	}

	/** Bytes read and the time to deliver them. */
	private record Chunk(byte[] bytes, long deliverAt) {

		static final Chunk END = new Chunk(new byte[0], 0);

	}

}
