package dev.limiter.internal.web;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AdvisorChainFactory;
import org.springframework.aop.framework.DefaultAdvisorChainFactory;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.context.ApplicationContext;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.support.GenericConversionService;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.support.ConfigurableWebBindingInitializer;
import org.springframework.web.bind.support.WebBindingInitializer;
import org.springframework.web.method.ControllerAdviceBean;
import org.springframework.web.method.HandlerMethod;

import dev.limiter.RateLimitExceededException;
import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.call.RateLimitAdvisor;
import dev.limiter.internal.key.CurrentRequest;

/**
 * Answers a caller whom the limiter already knows to be over a handler method's limits
 * before the web stack resolves the method's arguments, for both stacks: the same
 * rejection the method would throw, without calling through the method's proxy. Decided
 * once per method: without arguments, from the arguments its limits read when the request
 * gives them as the stack would bind them ({@link RequestArguments}), or not at all
 * (limits that read anything else, a key resolver that reads arguments, or advice ordered
 * ahead of Limiter's, such as method security, which keeps its turn).
 */
public final class EarlyRejections {

	private static final AdvisorChainFactory CHAINS = new DefaultAdvisorChainFactory();

	private static final TypeDescriptor TEXT = TypeDescriptor.valueOf(String.class);

	private static final Early NONE = new Early(null);

	private static final Early WITHOUT_ARGUMENTS = new Early(null);

	private final Supplier<CallPipeline> pipelineSupplier;

	private final ApplicationContext context;

	private final Supplier<Collection<WebBindingInitializer>> initializers;

	private final Map<Method, Early> early = new ConcurrentHashMap<>();

	private volatile CallPipeline pipeline;

	/**
	 * Create the early answers.
	 * @param pipeline supplies the pipeline that decides the methods' calls, on first use
	 * so that the store is not created with the handler mappings
	 * @param context the context of the application's controller advice, or {@code null}
	 * for methods whose limits read no argument only
	 * @param initializers the binding initializers of the stack's handler adapters, whose
	 * editors and converters could bind a request's text otherwise
	 */
	public EarlyRejections(Supplier<CallPipeline> pipeline, ApplicationContext context,
			Supplier<Collection<WebBindingInitializer>> initializers) {
		if (pipeline == null) {
			throw new IllegalArgumentException("pipeline must not be null");
		}
		this.pipelineSupplier = pipeline;
		this.context = context;
		this.initializers = initializers;
	}

	/**
	 * Return whether a handler method's known rejections may be answered before its
	 * arguments are resolved.
	 * @param handler the handler method
	 * @return whether {@link #reject} can answer it
	 */
	public boolean answers(HandlerMethod handler) {
		return early(handler) != NONE;
	}

	/**
	 * Throw the rejection that the limiter already knows for a call of a handler method;
	 * do nothing otherwise, leaving the decision to the call.
	 * @param handler the handler method about to be called
	 * @param request the request, to read the arguments the method's limits read
	 * @param current the request as the key resolver finds it, or {@code null} for the
	 * pipeline's own lookup (the request a blocking call's thread serves)
	 * @throws RateLimitExceededException if the limiter knows the call is rejected
	 */
	public void reject(HandlerMethod handler, RequestArguments.Request request, CurrentRequest current) {
		Early early = early(handler);
		Object[] arguments = null;
		if (early.arguments != null) {
			arguments = early.arguments.read(request);
			if (arguments == null) {
				return;
			}
		}
		else if (early != WITHOUT_ARGUMENTS) {
			return;
		}
		if (current != null) {
			pipeline().rejectCached(handler.getMethod(), handler.getBeanType(), arguments, current);
		}
		else {
			pipeline().rejectCached(handler.getMethod(), handler.getBeanType(), arguments);
		}
	}

	private Early early(HandlerMethod handler) {
		Early early = this.early.get(handler.getMethod());
		return (early != null) ? early : this.early.computeIfAbsent(handler.getMethod(), (method) -> decide(handler));
	}

	private Early decide(HandlerMethod handlerMethod) {
		if (!limitedFirst(handlerMethod)) {
			return NONE;
		}
		BitSet read = pipeline().argumentsRead(handlerMethod.getMethod(), handlerMethod.getBeanType());
		if (read == null) {
			return NONE;
		}
		if (read.isEmpty()) {
			return WITHOUT_ARGUMENTS;
		}
		if (this.context == null || !bindsAsGiven(handlerMethod.getBeanType())) {
			return NONE;
		}
		RequestArguments arguments = RequestArguments.of(handlerMethod, read);
		return (arguments != null) ? new Early(arguments) : NONE;
	}

	/**
	 * Return whether the stack binds a request's text to a {@code String} parameter of
	 * the controller as it is: no {@code @InitBinder} of the controller or of advice that
	 * applies to it, no property editors of the binding initializer, and no converter
	 * from text to text.
	 */
	private boolean bindsAsGiven(Class<?> controllerType) {
		if (hasInitBinder(controllerType)) {
			return false;
		}
		for (ControllerAdviceBean advice : ControllerAdviceBean.findAnnotatedBeans(this.context)) {
			if (advice.isApplicableToBeanType(controllerType) && advice.getBeanType() != null
					&& hasInitBinder(advice.getBeanType())) {
				return false;
			}
		}
		for (WebBindingInitializer initializer : this.initializers.get()) {
			if (!(initializer instanceof ConfigurableWebBindingInitializer configurable)
					|| configurable.getPropertyEditorRegistrars() != null) {
				return false;
			}
			ConversionService conversion = configurable.getConversionService();
			if (conversion != null && !(conversion instanceof GenericConversionService generic
					&& generic.canBypassConvert(TEXT, TEXT))) {
				return false;
			}
		}
		return true;
	}

	private static boolean hasInitBinder(Class<?> type) {
		return !MethodIntrospector
			.selectMethods(type,
					(ReflectionUtils.MethodFilter) (method) -> AnnotatedElementUtils.hasAnnotation(method,
							InitBinder.class))
			.isEmpty();
	}

	/**
	 * Return whether Limiter's advice is the first advice the handler's bean runs for the
	 * method, decided once per method from the proxy's own interceptor chain. A bean that
	 * is not advised is never limited, so it is not answered here either; advice ordered
	 * ahead of Limiter's (security, say) keeps its turn before every rejection.
	 */
	private static boolean limitedFirst(HandlerMethod handlerMethod) {
		if (!(handlerMethod.getBean() instanceof Advised advised)) {
			return false;
		}
		Method method = handlerMethod.getMethod();
		for (Object interceptor : CHAINS.getInterceptorsAndDynamicInterceptionAdvice(advised, method,
				handlerMethod.getBeanType())) {
			if (interceptor != ExposeInvocationInterceptor.INSTANCE) {
				return Arrays.stream(advised.getAdvisors())
					.anyMatch((advisor) -> advisor instanceof RateLimitAdvisor && advisor.getAdvice() == interceptor);
			}
		}
		return false;
	}

	private CallPipeline pipeline() {
		CallPipeline pipeline = this.pipeline;
		if (pipeline == null) {
			pipeline = this.pipelineSupplier.get();
			this.pipeline = pipeline;
		}
		return pipeline;
	}

	/** How a method's known rejections are answered before its arguments are resolved. */
	private static final class Early {

		final RequestArguments arguments;

		Early(RequestArguments arguments) {
			this.arguments = arguments;
		}

	}

}
