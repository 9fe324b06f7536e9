package dev.limiter.internal.web;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.HandlerMethod;

/**
 * Reads from a request the arguments that Spring MVC or WebFlux would bind to a handler's
 * parameters, for the parameters a limit reads, before they are resolved: a
 * {@code String} annotated with {@code @RequestParam}, {@code @PathVariable} or
 * {@code @RequestHeader}, given once and not empty, is bound as the request gives it (no
 * default, no conversion). Any other parameter, or a value that is missing, repeated or
 * empty, leaves the call to the framework's own resolution.
 */
public final class RequestArguments {

	private static final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final int count;

	private final List<Source> sources;

	private RequestArguments(int count, List<Source> sources) {
		this.count = count;
		this.sources = sources;
	}

	/**
	 * Return how to read the arguments at the given indexes of a handler's parameters, or
	 * {@code null} when one of them is not read from the request as it stands.
	 * @param handler the handler method
	 * @param read the indexes of the parameters to read
	 * @return the arguments' sources, or {@code null}
	 */
	public static RequestArguments of(HandlerMethod handler, BitSet read) {
		MethodParameter[] parameters = handler.getMethodParameters();
		List<Source> sources = new ArrayList<>();
		for (int index = read.nextSetBit(0); index >= 0; index = read.nextSetBit(index + 1)) {
			if (index >= parameters.length) {
				return null;
			}
			Source source = source(parameters[index]);
			if (source == null) {
				return null;
			}
			sources.add(source);
		}
		return new RequestArguments(parameters.length, List.copyOf(sources));
	}

	private static Source source(MethodParameter parameter) {
		if (parameter.getParameterType() != String.class) {
			return null;
		}
		RequestParam param = parameter.getParameterAnnotation(RequestParam.class);
		if (param != null) {
			String name = name(parameter, param.name());
			return (name != null) ? new Source(parameter.getParameterIndex(), Kind.PARAMETER, name) : null;
		}
		PathVariable variable = parameter.getParameterAnnotation(PathVariable.class);
		if (variable != null) {
			String name = name(parameter, variable.name());
			return (name != null) ? new Source(parameter.getParameterIndex(), Kind.PATH, name) : null;
		}
		RequestHeader header = parameter.getParameterAnnotation(RequestHeader.class);
		if (header != null) {
			String name = name(parameter, header.name());
			return (name != null) ? new Source(parameter.getParameterIndex(), Kind.HEADER, name) : null;
		}
		return null;
	}

	private static String name(MethodParameter parameter, String declared) {
		if (!declared.isEmpty()) {
			return declared;
		}
		MethodParameter named = parameter.clone();
		named.initParameterNameDiscovery(parameterNames);
		return named.getParameterName();
	}

	/**
	 * Read the arguments from a request.
	 * @param request the request
	 * @return the arguments at the indexes read, {@code null} elsewhere; {@code null}
	 * when one of them is missing, repeated or empty, or the request is multipart
	 */
	public Object[] read(Request request) {
		Object[] arguments = new Object[this.count];
		for (Source source : this.sources) {
			String value = source.read(request);
			if (value == null || value.isEmpty()) {
				return null;
			}
			arguments[source.index()] = value;
		}
		return arguments;
	}

	/**
	 * A request as the arguments are read from it, on either web stack.
	 */
	public interface Request {

		/**
		 * Return the values of a request parameter as the stack binds
		 * {@code @RequestParam}.
		 * @param name the parameter's name
		 * @return its values, or {@code null} when the stack would bind it otherwise
		 */
		List<String> parameter(String name);

		/**
		 * Return the path's variables, as the handler mapping matched them.
		 * @return the variables, or {@code null}
		 */
		Map<?, ?> pathVariables();

		/**
		 * Return the values of a header.
		 * @param name the header's name
		 * @return its values, or {@code null}
		 */
		List<String> header(String name);

	}

	private enum Kind {

		PARAMETER, PATH, HEADER

	}

	/** Where one argument comes from. */
	private record Source(int index, Kind kind, String name) {

		String read(Request request) {
			return switch (this.kind) {
				case PARAMETER -> single(request.parameter(this.name));
				case PATH -> {
					Map<?, ?> variables = request.pathVariables();
					yield (variables != null && variables.get(this.name) instanceof String value) ? value : null;
				}
				case HEADER -> single(request.header(this.name));
			};
		}

		private static String single(List<String> values) {
			return (values != null && values.size() == 1) ? values.get(0) : null;
		}

	}

}
