package dev.limiter.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for test set-up and inspection, independent of the client under
 * test.
 */
public final class RespClient implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	public RespClient(String host, int port, Duration timeout) {
		try {
			this.socket = new Socket();
			this.socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
			this.socket.setSoTimeout((int) timeout.toMillis());
			this.in = new BufferedInputStream(this.socket.getInputStream());
			this.out = this.socket.getOutputStream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Send one command and read its reply.
	 * @param arguments the command and its arguments
	 * @return a {@code String}, {@code Long}, {@code List}, {@code null} or
	 * {@link ErrorReply}
	 */
	public Object call(String... arguments) {
		try {
			ByteArrayOutputStream request = new ByteArrayOutputStream();
			request.write(("*" + arguments.length + "\r\n").getBytes(StandardCharsets.UTF_8));
			for (String argument : arguments) {
				byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
				request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
				request.write(bytes);
				request.write("\r\n".getBytes(StandardCharsets.UTF_8));
			}
			this.out.write(request.toByteArray());
			this.out.flush();
			return read();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private Object read() throws IOException {
		int type = this.in.read();
		if (type == -1) {
			throw new IOException("Connection closed");
		}
		String line = readLine();
		switch (type) {
			case '+':
				return line;
			case '-':
				return new ErrorReply(line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] bytes = this.in.readNBytes(length + 2);
				return new String(bytes, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(read());
				}
				return items;
			}
			default:
				throw new IOException("Unexpected RESP type " + (char) type);
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int b;
		while ((b = this.in.read()) != '\r') {
			if (b == -1) {
				throw new IOException("Connection closed");
			}
			line.write(b);
		}
		this.in.read();
		return line.toString(StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// Nothing to do: the socket is gone either way.
		}
	}

	/**
	 * An error reply ({@code -ERR ...}).
	 *
	 * @param message the error text
	 */
	public record ErrorReply(String message) {

	}

}
