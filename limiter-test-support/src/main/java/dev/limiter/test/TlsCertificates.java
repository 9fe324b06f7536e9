package dev.limiter.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority made for a test, and a certificate it signed for
 * {@code localhost} and {@code 127.0.0.1}, written as PEM files by {@code openssl}: what
 * a Redis over TLS presents, and what a client must trust.
 *
 * @param ca the CA's certificate, for a client's trust store
 * @param serverCertificate the server's certificate, signed by the CA
 * @param serverKey the server's private key
 */
public record TlsCertificates(Path ca, Path serverCertificate, Path serverKey) {

	/**
	 * Make a CA and a server certificate it signed, valid for two days.
	 * @param directory where the files are written
	 * @param name the CA's common name, which tells two CAs apart
	 * @return the files
	 */
	public static TlsCertificates create(Path directory, String name) {
		try {
			Files.createDirectories(directory);
			Path ca = directory.resolve("ca.crt");
			Path caKey = directory.resolve("ca.key");
			Path request = directory.resolve("server.csr");
			Path certificate = directory.resolve("server.crt");
			Path key = directory.resolve("server.key");
			Path extensions = directory.resolve("server.ext");
			Files.writeString(extensions, "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
			openssl(directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey.toString(), "-out",
					ca.toString(), "-days", "2", "-subj", "/CN=" + name);
			openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out",
					request.toString(), "-subj", "/CN=localhost");
			openssl(directory, "x509", "-req", "-in", request.toString(), "-CA", ca.toString(), "-CAkey",
					caKey.toString(), "-CAcreateserial", "-out", certificate.toString(), "-days", "2", "-extfile",
					extensions.toString());
			return new TlsCertificates(ca, certificate, key);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot write certificates to " + directory, ex);
		}
	}

	private static void openssl(Path directory, String... arguments) throws IOException {
		List<String> command = new java.util.ArrayList<>(List.of("openssl"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).directory(directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("openssl.log").toFile())
			.start();
		try {
			if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("openssl " + String.join(" ", arguments) + " failed: "
						+ Files.readString(directory.resolve("openssl.log")));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while making certificates", ex);
		}
	}

}
