package dev.limiter.internal.web.servlet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.GenericHttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.SmartHttpMessageConverter;

import dev.limiter.internal.web.ProblemBodies;

/**
 * Writes the body of a rejection onto a servlet response, for every servlet surface (an
 * annotated Spring MVC handler, a Gateway Server MVC route): the bytes the application's
 * own converter writes for the problem, serialized once per distinct problem and written
 * again for the next rejections with the same problem, without content negotiation and
 * encoding per rejection.
 */
public final class ServletRejections {

	private static final ResolvableType PROBLEM_TYPE = ResolvableType.forClass(ProblemDetail.class);

	// Tomcat's last chunk without trailer fields is the one it writes without a supplier.
	private static final Supplier<Map<String, String>> NO_TRAILER_FIELDS = () -> null;

	private final ProblemBodies<Body> bodies = new ProblemBodies<>();

	/**
	 * Return whether a converter writes a problem as {@code application/problem+json}.
	 * @param converter the converter
	 * @return whether it writes problems
	 */
	public static boolean writesProblems(HttpMessageConverter<?> converter) {
		MediaType problemJson = MediaType.APPLICATION_PROBLEM_JSON;
		if (converter instanceof GenericHttpMessageConverter<?> generic) {
			return generic.canWrite(ProblemDetail.class, ProblemDetail.class, problemJson);
		}
		if (converter instanceof SmartHttpMessageConverter<?> smart) {
			return smart.canWrite(PROBLEM_TYPE, ProblemDetail.class, problemJson);
		}
		return converter.canWrite(ProblemDetail.class, problemJson);
	}

	/**
	 * Write a problem as the body of the response, whose status and headers are set,
	 * chunked, as Spring MVC's annotated handlers write it.
	 * @param problem the problem
	 * @param contentType its content type
	 * @param request the request
	 * @param response the response
	 * @param converter the converter that serializes it
	 * @throws IOException if the response cannot be written
	 */
	public void write(ProblemDetail problem, MediaType contentType, HttpServletRequest request,
			HttpServletResponse response, HttpMessageConverter<?> converter) throws IOException {
		Body body = body(problem, contentType, response, converter);
		boolean oneWrite = chunkedAtTheEnd(request, response);
		OutputStream stream = response.getOutputStream();
		stream.write(body.bytes());
		if (!oneWrite) {
			stream.flush();
			response.flushBuffer();
		}
	}

	/**
	 * Write a problem as the body of the response, whose status and headers are set, as a
	 * surface whose own writes were watched once writes it: flushed where it flushed (the
	 * server then chunks it), else left for the server to count.
	 * @param problem the problem
	 * @param contentType its content type
	 * @param response the response
	 * @param converter the converter that serializes it
	 * @param flush whether the surface's own write flushed the body
	 * @throws IOException if the response cannot be written
	 */
	public void write(ProblemDetail problem, MediaType contentType, HttpServletResponse response,
			HttpMessageConverter<?> converter, boolean flush) throws IOException {
		Body body = body(problem, contentType, response, converter);
		OutputStream stream = response.getOutputStream();
		stream.write(body.bytes());
		if (flush) {
			stream.flush();
		}
	}

	private Body body(ProblemDetail problem, MediaType contentType, HttpServletResponse response,
			HttpMessageConverter<?> converter) throws IOException {
		Body body = this.bodies.get(problem, contentType, (p) -> serialize(p, contentType, converter));
		for (String[] header : body.headers()) {
			response.setHeader(header[0], header[1]);
		}
		return body;
	}

	/**
	 * Keep the chunked answer Spring MVC gives, in one write to the socket instead of
	 * two: Spring MVC's converter flushes the body, so the response goes out chunked, as
	 * the headers and the body first and the last chunk when the request ends. Tomcat
	 * chunks an HTTP/1.1 response that has trailer fields even when it could count its
	 * length, so a supplier of no trailer fields gives the same bytes without the early
	 * flush; on other servers and protocols the body is flushed as Spring MVC does.
	 */
	private static boolean chunkedAtTheEnd(HttpServletRequest request, HttpServletResponse response) {
		if (!"HTTP/1.1".equals(request.getProtocol()) || !isTomcat(request)) {
			return false;
		}
		try {
			response.setTrailerFields(NO_TRAILER_FIELDS);
			return true;
		}
		catch (IllegalStateException ex) {
			return false;
		}
	}

	private static boolean isTomcat(HttpServletRequest request) {
		String server = request.getServletContext().getServerInfo();
		return server != null && server.startsWith("Apache Tomcat/");
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static Body serialize(ProblemDetail problem, MediaType contentType, HttpMessageConverter<?> converter)
			throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(contentType);
		HttpOutputMessage message = new HttpOutputMessage() {

			@Override
			public OutputStream getBody() {
				return bytes;
			}

			@Override
			public HttpHeaders getHeaders() {
				return headers;
			}

		};
		if (converter instanceof GenericHttpMessageConverter generic) {
			generic.write(problem, ProblemDetail.class, contentType, message);
		}
		else if (converter instanceof SmartHttpMessageConverter smart) {
			smart.write(problem, PROBLEM_TYPE, contentType, message, null);
		}
		else {
			((HttpMessageConverter) converter).write(problem, contentType, message);
		}
		List<String[]> written = new ArrayList<>();
		headers.forEach((name, values) -> values.forEach((value) -> written.add(new String[] { name, value })));
		return new Body(bytes.toByteArray(), List.copyOf(written));
	}

	/** The bytes of a problem and the headers its converter set, as name and value. */
	private record Body(byte[] bytes, List<String[]> headers) {

	}

}
