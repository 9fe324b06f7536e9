package dev.limiter.actuate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

import dev.limiter.internal.LogText;

/**
 * An override's body that Actuator cannot read as flat fields (a nested {@code {"plans":
 * {...}}}, malformed JSON, a list) is refused before {@link OverrideBodies} sees it, by
 * each web stack's own bare 400; here it is answered as every other bad override is, a
 * 400 whose {@code error} names the field and the flat form to write.
 */
final class OverrideBodyErrors {

	private static final EndpointId RATELIMITS = EndpointId.of("ratelimits");

	// Jackson names where it stopped: "(through reference chain:
	// java.util.LinkedHashMap["plans"])"
	private static final Pattern FIELD = Pattern.compile("reference chain: [^\\[]*\\[\"([^\"]{1,100})\"\\]");

	private final Supplier<PathMappedEndpoints> endpoints;

	/**
	 * Create the answer.
	 * @param endpoints where the endpoints are mapped, or a supplier of {@code null} when
	 * none are over the web
	 */
	OverrideBodyErrors(Supplier<PathMappedEndpoints> endpoints) {
		this.endpoints = endpoints;
	}

	/** Whether a request to this path and method is a write of the endpoint. */
	boolean isOverride(String method, String path) {
		PathMappedEndpoints mapped = this.endpoints.get();
		String base = (mapped != null) ? mapped.getPath(RATELIMITS) : null;
		return base != null && HttpMethod.POST.matches(method) && path.startsWith(base + "/");
	}

	/** The 400's body for a body that could not be read. */
	static String body(Throwable ex) {
		String field = null;
		for (Throwable cause = ex; cause != null && field == null; cause = cause.getCause()) {
			Matcher matcher = FIELD.matcher(String.valueOf(cause.getMessage()));
			field = matcher.find() ? matcher.group(1) : null;
		}
		String error = (field != null)
				? "Field " + LogText.oneLine(field) + " is not a number or a period: an override's fields are flat, "
						+ "such as {\"threshold\": 500, \"plans.<plan>.threshold\": 100}"
				: "The body is not a JSON object of flat fields: write {\"threshold\": 500, \"period\": \"1m\"}, "
						+ "{\"plans.<plan>.threshold\": 100}, or {\"threshold\": null} to remove a number";
		return "{\"error\":\"" + escaped(error) + "\"}";
	}

	private static String escaped(String text) {
		StringBuilder escaped = new StringBuilder(text.length() + 16);
		for (char c : text.toCharArray()) {
			if (c == '"' || c == '\\') {
				escaped.append('\\').append(c);
			}
			else if (c < 0x20) {
				escaped.append(String.format("\\u%04x", (int) c));
			}
			else {
				escaped.append(c);
			}
		}
		return escaped.toString();
	}

	/** Spring MVC's side: ahead of the resolver that answers a bare 400. */
	static final class Servlet implements HandlerExceptionResolver, Ordered {

		private final OverrideBodyErrors errors;

		Servlet(OverrideBodyErrors errors) {
			this.errors = errors;
		}

		@Override
		public ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, Object handler,
				Exception ex) {
			if (!(ex instanceof HttpMessageNotReadableException) || !this.errors.isOverride(request.getMethod(),
					request.getRequestURI().substring(request.getContextPath().length()))) {
				return null;
			}
			try {
				response.setStatus(HttpStatus.BAD_REQUEST.value());
				response.setContentType(MediaType.APPLICATION_JSON_VALUE);
				response.setCharacterEncoding(StandardCharsets.UTF_8.name());
				response.getWriter().write(body(ex));
				return new ModelAndView();
			}
			catch (IOException written) {
				return null;
			}
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE + 10;
		}

	}

	/** WebFlux's side: ahead of Boot's error handler, which answers a bare 400. */
	static final class Reactive implements WebExceptionHandler, Ordered {

		private final OverrideBodyErrors errors;

		Reactive(OverrideBodyErrors errors) {
			this.errors = errors;
		}

		@Override
		public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
			if (!(ex instanceof ServerWebInputException) || exchange.getResponse().isCommitted()
					|| !this.errors.isOverride(exchange.getRequest().getMethod().name(),
							exchange.getRequest().getPath().pathWithinApplication().value())) {
				return Mono.error(ex);
			}
			exchange.getResponse().setStatusCode(HttpStatus.BAD_REQUEST);
			exchange.getResponse().getHeaders().setContentType(MediaType.APPLICATION_JSON);
			byte[] body = body(ex).getBytes(StandardCharsets.UTF_8);
			return exchange.getResponse().writeWith(Mono.just(exchange.getResponse().bufferFactory().wrap(body)));
		}

		@Override
		public int getOrder() {
			// Boot's DefaultErrorWebExceptionHandler is -1
			return -2;
		}

	}

}
