package dev.limiter.sample;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Reads a response off the socket as a client sees it, every byte but the {@code Date}.
 */
final class RawHttp {

	private static final Pattern DATE = Pattern.compile("(?m)^Date: [^\r\n]*");

	private RawHttp() {
	}

	static String get(int port, String path) throws Exception {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(30_000);
			OutputStream out = socket.getOutputStream();
			out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			ByteArrayOutputStream response = new ByteArrayOutputStream();
			in.transferTo(response);
			return DATE.matcher(response.toString(StandardCharsets.UTF_8)).replaceAll("Date: (any)");
		}
	}

}
