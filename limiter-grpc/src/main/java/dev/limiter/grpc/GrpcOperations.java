package dev.limiter.grpc;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import org.springframework.aop.support.AopUtils;

import dev.limiter.internal.call.AnnotatedOperation;
import dev.limiter.internal.call.SurfaceCalls;

/**
 * The limited methods of the application's gRPC services, by full method name
 * ({@code package.Service/Method}): a service method's own {@code @RateLimit}, else the
 * named limits that {@code limiter.grpc.limits} gives the method, else its service. Built
 * once, when the application has started its beans.
 */
final class GrpcOperations {

	private final Map<String, GrpcOperation> byMethod;

	private GrpcOperations(Map<String, GrpcOperation> byMethod) {
		this.byMethod = byMethod;
	}

	static GrpcOperations empty() {
		return new GrpcOperations(Map.of());
	}

	/**
	 * Find the limits of every method of the services.
	 * @throws IllegalArgumentException naming a configured method or service that no
	 * service has, or a configured limit that is not defined
	 */
	static GrpcOperations of(SurfaceCalls calls, Collection<BindableService> services,
			Map<String, List<String>> configured) {
		Map<String, GrpcOperation> byMethod = new HashMap<>();
		Set<String> known = new LinkedHashSet<>();
		for (BindableService service : services) {
			Class<?> targetClass = AopUtils.getTargetClass(service);
			ServerServiceDefinition definition = service.bindService();
			String serviceName = definition.getServiceDescriptor().getName();
			known.add(serviceName);
			for (ServerMethodDefinition<?, ?> method : definition.getMethods()) {
				MethodDescriptor<?, ?> descriptor = method.getMethodDescriptor();
				String fullName = descriptor.getFullMethodName();
				known.add(fullName);
				boolean streamsRequests = !descriptor.getType().clientSendsOneMessage();
				AnnotatedOperation operation = annotated(calls, targetClass, descriptor.getBareMethodName());
				if (operation != null) {
					byMethod.put(fullName, new GrpcOperation(operation, targetClass,
							!streamsRequests && !operation.argumentsRead().isEmpty()));
					continue;
				}
				List<String> names = configured.getOrDefault(fullName, configured.get(serviceName));
				if (names != null && !names.isEmpty()) {
					AnnotatedOperation named = calls.register("grpc " + fullName, names);
					byMethod.put(fullName, new GrpcOperation(named, null, false));
				}
			}
		}
		for (String name : configured.keySet()) {
			if (!known.contains(name)) {
				throw new IllegalArgumentException("limiter.grpc.limits[" + name + "] names no gRPC service or method "
						+ "of this application (" + known + "). Name a service as package.Service or a method as "
						+ "package.Service/Method.");
			}
		}
		return new GrpcOperations(Map.copyOf(byMethod));
	}

	/**
	 * Return the limits of a method.
	 * @param fullMethodName such as {@code greet.Greeter/SayHello}
	 * @return its operation, or {@code null} when it is not limited
	 */
	GrpcOperation get(String fullMethodName) {
		return this.byMethod.get(fullMethodName);
	}

	boolean isEmpty() {
		return this.byMethod.isEmpty();
	}

	/**
	 * The Java method that serves an RPC, by the name gRPC's code generator gives it
	 * ({@code SayHello} is {@code sayHello}), with its own limits.
	 */
	private static AnnotatedOperation annotated(SurfaceCalls calls, Class<?> targetClass, String bareName) {
		String javaName = Character.toLowerCase(bareName.charAt(0)) + bareName.substring(1);
		for (Method method : targetClass.getMethods()) {
			if (method.getName().equals(javaName) && !method.isBridge()) {
				AnnotatedOperation operation = calls.operation(method, targetClass);
				if (operation != null) {
					return operation;
				}
			}
		}
		return null;
	}

	/**
	 * A limited method: its operation, the class of the service that runs it (none for
	 * one limited by name), and whether its key or condition reads its request message.
	 */
	record GrpcOperation(AnnotatedOperation operation, Class<?> targetClass, boolean readsMessage) {
	}

}
