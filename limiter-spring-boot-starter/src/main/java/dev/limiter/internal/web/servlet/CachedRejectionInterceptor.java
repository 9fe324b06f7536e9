package dev.limiter.internal.web.servlet;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
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
import org.springframework.web.method.ControllerAdviceBean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

import dev.limiter.internal.call.RateLimitAdvisor;
import dev.limiter.internal.call.CallPipeline;
import dev.limiter.internal.call.RateLimitAspect;

/**
 * Answers a caller whom the limiter already knows to be over a handler method's limits
 * before Spring MVC resolves the method's arguments: the same rejection the method would
 * throw, resolved into the same 429, without calling through the method's proxy. When the
 * key, condition or plan reads arguments, they are read from the request where Spring MVC
 * would bind them as they stand ({@link RequestArguments}: a {@code String} request
 * parameter, path variable or header); the others, such as a body, are never resolved,
 * and a method whose limits read anything else is left to the call.
 * <p>
 * Registered last among the application's interceptors, so that those the application
 * adds (a locale change, an authentication check) still run first. A rejection known here
 * is one the rejection cache remembers; every other call goes on to the method, where
 * {@link RateLimitAspect} decides as before. What a caller can see: a request that would
 * fail argument resolution or validation (a 400) gets the 429 when its caller is blocked.
 * Methods on which other advice runs before Limiter's (method security, say) are left to
 * the call, so that advice keeps its turn.
 */
public class CachedRejectionInterceptor implements HandlerInterceptor {

	private static final AdvisorChainFactory CHAINS = new DefaultAdvisorChainFactory();

	private final Supplier<CallPipeline> pipelineSupplier;

	private static final TypeDescriptor TEXT = TypeDescriptor.valueOf(String.class);

	private final Map<Method, Early> early = new ConcurrentHashMap<>();

	private final ApplicationContext context;

	private volatile CallPipeline pipeline;

	/**
	 * Create the interceptor, for methods whose limits read no argument.
	 * @param pipeline supplies the pipeline that decides the methods' calls, on first use
	 * so that the store is not created with the handler mappings
	 */
	public CachedRejectionInterceptor(Supplier<CallPipeline> pipeline) {
		this(pipeline, null);
	}

	/**
	 * Create the interceptor, which also answers methods whose limits read arguments that
	 * Spring MVC binds from the request as it stands ({@link RequestArguments}).
	 * @param pipeline supplies the pipeline that decides the methods' calls, on first use
	 * so that the store is not created with the handler mappings
	 * @param context the context of the application's controller advice and Spring MVC's
	 * binding, or {@code null} for methods whose limits read no argument only
	 */
	public CachedRejectionInterceptor(Supplier<CallPipeline> pipeline, ApplicationContext context) {
		if (pipeline == null) {
			throw new IllegalArgumentException("pipeline must not be null");
		}
		this.pipelineSupplier = pipeline;
		this.context = context;
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		// A request's first dispatch only: an async dispatch carries the result of a call
		// that was already admitted, whatever the cache has learnt since.
		if (request.getDispatcherType() == DispatcherType.REQUEST && handler instanceof HandlerMethod handlerMethod) {
			Early early = this.early.computeIfAbsent(handlerMethod.getMethod(), (method) -> early(handlerMethod));
			if (early == Early.WITHOUT_ARGUMENTS) {
				pipeline().rejectCached(handlerMethod.getMethod(), handlerMethod.getBeanType());
			}
			else if (early.arguments != null) {
				Object[] arguments = early.arguments.read(request);
				if (arguments != null) {
					pipeline().rejectCached(handlerMethod.getMethod(), handlerMethod.getBeanType(), arguments);
				}
			}
		}
		return true;
	}

	/**
	 * Decide once per method how its known rejections are answered here: without
	 * arguments, from the arguments its limits read when the request gives them as Spring
	 * MVC would bind them, or not at all.
	 */
	private Early early(HandlerMethod handlerMethod) {
		if (!limitedFirst(handlerMethod)) {
			return Early.NONE;
		}
		BitSet read = pipeline().argumentsRead(handlerMethod.getMethod(), handlerMethod.getBeanType());
		if (read == null) {
			return Early.NONE;
		}
		if (read.isEmpty()) {
			return Early.WITHOUT_ARGUMENTS;
		}
		if (this.context == null || !bindsAsGiven(handlerMethod.getBeanType())) {
			return Early.NONE;
		}
		RequestArguments arguments = RequestArguments.of(handlerMethod, read);
		return (arguments != null) ? new Early(arguments) : Early.NONE;
	}

	/**
	 * Return whether Spring MVC binds a request's text to a {@code String} parameter of
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
		for (RequestMappingHandlerAdapter adapter : this.context.getBeansOfType(RequestMappingHandlerAdapter.class)
			.values()) {
			if (!(adapter.getWebBindingInitializer() instanceof ConfigurableWebBindingInitializer initializer)
					|| initializer.getPropertyEditorRegistrars() != null) {
				return false;
			}
			ConversionService conversion = initializer.getConversionService();
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
	private boolean limitedFirst(HandlerMethod handlerMethod) {
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

		static final Early NONE = new Early(null);

		static final Early WITHOUT_ARGUMENTS = new Early(null);

		final RequestArguments arguments;

		Early(RequestArguments arguments) {
			this.arguments = arguments;
		}

	}

}
