package dev.limiter.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process on a free loopback port, for tests, the sample
 * application and the benchmarks.
 * <p>
 * The binary is chosen by the system property {@code limiter.test.redis}: empty (the
 * default) takes {@code redis-server} from the {@code PATH} when there is one and the
 * binary packaged in {@code com.github.codemonstur:embedded-redis} otherwise;
 * {@code embedded} forces the packaged binary; {@code path} requires the one on the
 * {@code PATH}; anything else is taken as the path of a binary. When the system property
 * {@code limiter.test.redis-image} names a Docker image, {@link #start(String...)} runs
 * that image through Testcontainers instead (see {@link DockerRedis}).
 * <p>
 * Fault tests can {@link #kill()}, {@link #pause()}, {@link #resume()} and
 * {@link #restart()} the server; {@link #command(String...)} talks to it directly.
 *
 * @see #shared()
 */
public class RedisServer implements AutoCloseable {

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

	private static volatile RedisServer shared;

	private static final String SENTINEL_CONFIG = "sentinel.conf";

	private final Path binary;

	private final List<String> extraArguments;

	private final Path directory;

	private final int port;

	private Process process;

	private boolean paused;

	protected RedisServer(Path binary, int port, List<String> extraArguments) {
		this.binary = binary;
		this.port = port;
		this.extraArguments = List.copyOf(extraArguments);
		try {
			this.directory = Files.createTempDirectory("limiter-redis-" + port + "-");
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot create a directory for redis-server", ex);
		}
	}

	/**
	 * Start a server as chosen by the system properties, on a free port.
	 * @param extraArguments further {@code redis-server} arguments, such as
	 * {@code "--cluster-enabled", "yes"}
	 * @return the running server
	 */
	public static RedisServer start(String... extraArguments) {
		String image = System.getProperty("limiter.test.redis-image", "");
		if (!image.isBlank() && extraArguments.length == 0) {
			return DockerRedis.start(image);
		}
		return startProcess(freePort(), extraArguments);
	}

	/**
	 * Start a {@code redis-server} process on the given port.
	 * @param port the port to listen on
	 * @param extraArguments further {@code redis-server} arguments
	 * @return the running server
	 */
	public static RedisServer startProcess(int port, String... extraArguments) {
		RedisServer server = new RedisServer(binary(), port, Arrays.asList(extraArguments));
		server.startProcess();
		return server;
	}

	/**
	 * Start a {@code redis-server} that also listens over TLS, with a certificate that
	 * {@link TlsCertificates} made: {@link #port()} stays a plain port for the test's own
	 * commands, clients connect to the TLS port. It needs a {@code redis-server} built
	 * with TLS on the {@code PATH} (Debian's is; the embedded one is not).
	 * @param tlsPort the TLS port
	 * @param certificates the server's certificate and key, and the CA of its clients
	 * @return the running server
	 */
	public static RedisServer startTls(int tlsPort, TlsCertificates certificates) {
		Path binary = onPath();
		if (binary == null) {
			throw new IllegalStateException("A Redis over TLS needs a redis-server built with TLS on the PATH "
					+ "(Debian's redis-server package is); the embedded redis-server has no TLS");
		}
		RedisServer server = new RedisServer(binary, freePort(),
				List.of("--tls-port", Integer.toString(tlsPort), "--tls-cert-file",
						certificates.serverCertificate().toString(), "--tls-key-file",
						certificates.serverKey().toString(), "--tls-ca-cert-file", certificates.ca().toString(),
						"--tls-auth-clients", "no"));
		server.startProcess();
		return server;
	}

	/**
	 * Return one server for the whole JVM, started on first use and stopped at exit.
	 * Tests that share it flush it first; tests that break their server start their own.
	 * @return the shared server
	 */
	public static RedisServer shared() {
		RedisServer server = shared;
		if (server == null) {
			synchronized (RedisServer.class) {
				server = shared;
				if (server == null) {
					server = start();
					RedisServer stopping = server;
					Runtime.getRuntime().addShutdownHook(new Thread(stopping::close, "limiter-redis-shutdown"));
					shared = server;
				}
			}
		}
		return server;
	}

	public String host() {
		return "127.0.0.1";
	}

	public int port() {
		return this.port;
	}

	/**
	 * Return the URI that Lettuce and Spring Boot accept ({@code redis://host:port}).
	 * @return the server URI
	 */
	public String uri() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Return the server's version as {@code INFO server} reports it.
	 * @return the version, for example {@code 7.0.15}
	 */
	public String version() {
		String info = String.valueOf(command("INFO", "server"));
		for (String line : info.split("\r\n")) {
			if (line.startsWith("redis_version:")) {
				return line.substring("redis_version:".length());
			}
		}
		return "unknown";
	}

	/**
	 * Send one command and return its reply: a {@code String}, a {@code Long}, a
	 * {@code List}, {@code null}, or a {@link RespClient.ErrorReply}.
	 * @param arguments the command and its arguments
	 * @return the reply
	 */
	public Object command(String... arguments) {
		try (RespClient client = new RespClient(host(), port(), Duration.ofSeconds(5))) {
			return client.call(arguments);
		}
	}

	/**
	 * Return how many scripts the server has run so far ({@code EVAL} and
	 * {@code EVALSHA}, from {@code INFO commandstats}), to count a path's script calls.
	 * @return the script calls
	 */
	public long scriptCalls() {
		String stats = String.valueOf(command("INFO", "commandstats"));
		long calls = 0;
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				calls += Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
			}
		}
		return calls;
	}

	/**
	 * Remove every key and every cached script.
	 */
	public void flushAll() {
		command("FLUSHALL");
		command("SCRIPT", "FLUSH");
	}

	/**
	 * Kill the process with {@code SIGKILL}, as a crash would.
	 */
	public synchronized void kill() {
		if (this.process != null) {
			if (this.paused) {
				resume();
			}
			this.process.destroyForcibly();
			waitFor(this.process);
			this.process = null;
		}
	}

	/**
	 * Freeze the process with {@code SIGSTOP}: connections stay open, nothing answers.
	 */
	public synchronized void pause() {
		signal("STOP");
		this.paused = true;
	}

	/**
	 * Let a paused process go on with {@code SIGCONT}.
	 */
	public synchronized void resume() {
		signal("CONT");
		this.paused = false;
	}

	/**
	 * Start the server again on the same port (killing it first when it still runs).
	 */
	public synchronized void restart() {
		kill();
		startProcess();
	}

	public synchronized boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	@Override
	public synchronized void close() {
		kill();
		// the server's directory holds its log and dumps: gone with the server, or every
		// run leaves one per server in the temporary directory
		try (java.util.stream.Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(java.util.Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// left behind: the temporary directory's own cleaning removes it
		}
	}

	private void signal(String signal) {
		Process running = this.process;
		if (running == null) {
			throw new IllegalStateException("redis-server on port " + this.port + " is not running");
		}
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(running.pid())).inheritIO().start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + signal + " failed for redis-server " + running.pid());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot signal redis-server", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while signalling redis-server", ex);
		}
	}

	/**
	 * Start a Sentinel ({@code redis-server --sentinel}) on a free port, watching one
	 * master; it keeps its state in a configuration file of its own, as Sentinel must.
	 * @param masterName the name the Sentinels give the master
	 * @param master the master to watch
	 * @param quorum how many Sentinels must agree that the master is down
	 * @param downAfter how long the master must be unreachable to count as down
	 * @return the running Sentinel
	 */
	public static RedisServer startSentinel(String masterName, RedisServer master, int quorum, Duration downAfter) {
		RedisServer sentinel = new RedisServer(binary(), freePort(), List.of());
		try {
			Files.writeString(sentinel.directory.resolve(SENTINEL_CONFIG),
					String.join("\n",
							"sentinel monitor " + masterName + " " + master.host() + " " + master.port() + " " + quorum,
							"sentinel down-after-milliseconds " + masterName + " " + downAfter.toMillis(),
							"sentinel failover-timeout " + masterName + " 10000",
							"sentinel parallel-syncs " + masterName + " 1", ""));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot write the Sentinel configuration", ex);
		}
		sentinel.startProcess();
		return sentinel;
	}

	private boolean isSentinel() {
		return Files.exists(this.directory.resolve(SENTINEL_CONFIG));
	}

	private synchronized void startProcess() {
		List<String> command = new ArrayList<>(List.of(this.binary.toString()));
		if (isSentinel()) {
			// Sentinel takes its configuration file first and rewrites it as it learns.
			command.addAll(List.of(this.directory.resolve(SENTINEL_CONFIG).toString(), "--sentinel"));
		}
		command.addAll(List.of("--port", Integer.toString(this.port), "--bind", host(), "--protected-mode", "no",
				"--dir", this.directory.toString()));
		if (!isSentinel()) {
			command.addAll(List.of("--save", "", "--appendonly", "no"));
		}
		command.addAll(this.extraArguments);
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("redis.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start " + this.binary, ex);
		}
		awaitReady();
	}

	private void awaitReady() {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		IOException last = null;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited with " + this.process.exitValue() + ": " + log());
			}
			try (RespClient client = new RespClient(host(), this.port, Duration.ofSeconds(1))) {
				if ("PONG".equals(client.call("PING"))) {
					return;
				}
			}
			catch (UncheckedIOException ex) {
				last = ex.getCause();
			}
			Thread.onSpinWait();
		}
		this.process.destroyForcibly();
		throw new IllegalStateException("redis-server did not answer PING on port " + this.port + ": " + log(), last);
	}

	private String log() {
		try {
			return Files.readString(this.directory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return "(no log)";
		}
	}

	private static void waitFor(Process process) {
		try {
			process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Return a port that nothing listens on now.
	 * @return a free loopback port
	 */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("No free port", ex);
		}
	}

	/**
	 * Return the {@code redis-server} binary chosen by {@code limiter.test.redis}.
	 * @return the path of the binary
	 */
	public static Path binary() {
		String choice = System.getProperty("limiter.test.redis", "").trim();
		if (choice.isEmpty()) {
			Path onPath = onPath();
			return (onPath != null) ? onPath : embedded();
		}
		if (choice.equals("embedded")) {
			return embedded();
		}
		if (choice.equals("path")) {
			Path onPath = onPath();
			if (onPath == null) {
				throw new IllegalStateException("limiter.test.redis=path but there is no redis-server on the PATH");
			}
			return onPath;
		}
		Path given = Path.of(choice);
		if (!Files.isExecutable(given)) {
			throw new IllegalStateException("limiter.test.redis=" + choice + " is not an executable redis-server");
		}
		return given;
	}

	private static Path onPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(java.io.File.pathSeparator)) {
			Path candidate = Path.of(dir, "redis-server");
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	private static synchronized Path embedded() {
		String resource = embeddedResource();
		Path target = Path.of(System.getProperty("java.io.tmpdir"),
				"limiter-" + System.getProperty("user.name", "user") + "-" + resource);
		try (InputStream in = RedisServer.class.getResourceAsStream("/" + resource)) {
			if (in == null) {
				throw new IllegalStateException("embedded-redis has no " + resource + " on the classpath");
			}
			if (!Files.isExecutable(target)) {
				Path temporary = Files.createTempFile(target.getParent(), "redis-server", ".tmp");
				Files.copy(in, temporary, StandardCopyOption.REPLACE_EXISTING);
				temporary.toFile().setExecutable(true);
				Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			}
			return target;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot unpack the packaged redis-server to " + target, ex);
		}
	}

	private static String embeddedResource() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean arm = arch.contains("aarch64") || arch.contains("arm64");
		if (os.contains("linux")) {
			return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
		}
		if (os.contains("mac")) {
			return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
		}
		throw new IllegalStateException("No packaged redis-server for " + os + "/" + arch
				+ "; install redis-server on the PATH or set -Dlimiter.test.redis=/path/to/redis-server");
	}

}
