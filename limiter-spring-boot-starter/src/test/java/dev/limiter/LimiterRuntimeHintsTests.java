package dev.limiter;

import java.lang.reflect.Method;
import java.util.Collection;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.limiter.annotation.RateLimit;
import dev.limiter.internal.actuate.HealthApi;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Limiter reads reflectively or as resources is in its runtime hints, found through
 * {@code META-INF/spring/aot.factories} as Spring's AOT processing finds them.
 */
class LimiterRuntimeHintsTests {

	private final ClassLoader classLoader = getClass().getClassLoader();

	private final RuntimeHints hints = new RuntimeHints();

	LimiterRuntimeHintsTests() {
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", this.classLoader)
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(this.hints, this.classLoader));
	}

	@Test
	void everyLuaScriptIsAResourceHint() throws Exception {
		Resource[] scripts = new PathMatchingResourcePatternResolver(this.classLoader)
			.getResources("classpath*:META-INF/scripts/**/*.lua");
		assertThat(scripts).hasSizeGreaterThanOrEqualTo(6);
		for (Resource script : scripts) {
			String url = script.getURL().toString();
			String location = url.substring(url.indexOf("META-INF/scripts/"));
			assertThat(RuntimeHintsPredicates.resource().forResource(location)).as(location).accepts(this.hints);
		}
	}

	@Test
	void theDecisionMethodsReachedThroughMethodHandlesAreReflectionHints() {
		for (String method : new String[] { "granting", "decidedBy", "keeping" }) {
			assertThat(RuntimeHintsPredicates.reflection().onMethod(Decision.class, method).invoke()).as(method)
				.accepts(this.hints);
		}
		for (String method : new String[] { "claim", "claimed" }) {
			assertThat(RuntimeHintsPredicates.reflection().onMethod(Decision.Grant.class, method).invoke()).as(method)
				.accepts(this.hints);
		}
	}

	@Test
	void theHealthIndicatorProxyAndTheHealthItBuildsAreHints() {
		Class<?> indicator = HealthApi.indicatorType();
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(indicator)).accepts(this.hints);
		Class<?> health = ClassUtils.resolveClassName(indicator.getPackageName() + ".Health", this.classLoader);
		Class<?> builder = ClassUtils.resolveClassName(health.getName() + "$Builder", this.classLoader);
		for (Method method : new Method[] { ReflectionUtils.findMethod(health, "status", String.class),
				ReflectionUtils.findMethod(builder, "withDetails", java.util.Map.class),
				ReflectionUtils.findMethod(builder, "build") }) {
			assertThat(RuntimeHintsPredicates.reflection().onMethod(method).invoke()).as(method.toString())
				.accepts(this.hints);
		}
	}

	@Test
	void aRateLimitedBeanKeepsItsMethodsAndTheRequestTypesForSpel() {
		Collection<BeanRegistrationAotProcessor> processors = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories", this.classLoader)
			.load(BeanRegistrationAotProcessor.class);
		BeanRegistrationAotProcessor processor = processors.stream()
			.filter((candidate) -> candidate.getClass().getName().startsWith("dev.limiter."))
			.findFirst()
			.orElseThrow();
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("limited", new RootBeanDefinition(Limited.class));
		beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(Plain.class));
		assertThat(processor.processAheadOfTime(RegisteredBean.of(beanFactory, "plain"))).isNull();
		BeanRegistrationAotContribution contribution = processor
			.processAheadOfTime(RegisteredBean.of(beanFactory, "limited"));
		assertThat(contribution).isNotNull();
		RuntimeHints beanHints = new RuntimeHints();
		contribution.applyTo(new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(getClass())),
				new InMemoryGeneratedFiles(), beanHints), null);
		Method search = ReflectionUtils.findMethod(Limited.class, "search", String.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethod(search).invoke()).accepts(beanHints);
		assertThat(RuntimeHintsPredicates.reflection().onType(RateLimit.class)).accepts(beanHints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethod(ClassUtils.resolveClassName("jakarta.servlet.http.HttpServletRequest", this.classLoader),
					"getHeader")
			.invoke()).accepts(beanHints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of("org.springframework.web.server.ServerWebExchange"))).accepts(beanHints);
	}

	static class Limited {

		@RateLimit(threshold = 5, period = 60, key = "#user")
		public String search(String user) {
			return user;
		}

	}

	static class Plain {

		public String search(String user) {
			return user;
		}

	}

}
