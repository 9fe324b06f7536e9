package dev.limiter.web

import dev.limiter.Algorithm
import dev.limiter.RateLimiter
import dev.limiter.autoconfigure.LimiterAutoConfiguration
import dev.limiter.annotation.RateLimit
import dev.limiter.internal.call.RateLimitOperationSource
import dev.limiter.test.NonBlockingThreads
import dev.limiter.test.RedisServer
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatIllegalStateException
import org.awaitility.Awaitility
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.springframework.boot.WebApplicationType
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.WebApplicationContextRunner
import org.springframework.context.ApplicationContext
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.data.redis.connection.RedisStandaloneConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import org.springframework.http.MediaType
import org.springframework.test.web.reactive.server.WebTestClient
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders.asyncDispatch
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get
import org.springframework.test.web.servlet.setup.MockMvcBuilders
import org.springframework.web.bind.annotation.DeleteMapping
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController
import org.springframework.web.servlet.config.annotation.EnableWebMvc

/**
 * `@RateLimit` on Kotlin `suspend` functions and on methods that return a `Flow`: WebFlux
 * controllers and a service on Netty, with BlockHound failing any blocking call on Netty's
 * and Lettuce's threads, and a Spring MVC controller through its asynchronous dispatch;
 * the same keys, headers and answers as for Java methods, over a real Redis.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CoroutineRateLimitIntegrationTests {

    private val redis = RedisServer.shared()

    private lateinit var reactive: ConfigurableApplicationContext

    private lateinit var client: WebTestClient

    @BeforeAll
    fun start() {
        // kotlinx-coroutines reads its service files once, when the first suspend call
        // through a proxy awaits a Mono: Spring AOP's doing for any advice, not Limiter's.
        Class.forName("kotlinx.coroutines.reactive.ReactiveFlowKt")
        // BlockHound is global to the JVM: this class runs in a JVM of its own (the
        // starter's pom).
        NonBlockingThreads.watch(NonBlockingThreads.NETTY_AND_LETTUCE)
        val redisProperties = arrayOf(
            "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
            "limiter.rejection-cache.enabled=false",
        )
        reactive = SpringApplicationBuilder(ReactiveApplication::class.java)
            .web(WebApplicationType.REACTIVE)
            .properties("server.port=0", *redisProperties)
            .run()
        client = WebTestClient.bindToServer()
            .baseUrl("http://localhost:" + reactive.environment.getProperty("local.server.port"))
            .build()
    }

    @AfterAll
    fun stop() {
        reactive.close()
    }

    @BeforeEach
    fun flush() {
        redis.flushAll()
    }

    @Test
    fun aSuspendHandlerIsLimitedPerKeyWithHeadersAndA429() {
        for (remaining in listOf("1", "0")) {
            client.get().uri("/greeting?user=ann").exchange()
                .expectStatus().isOk
                .expectHeader().valueEquals("X-RateLimit-Remaining", remaining)
                .expectBody(String::class.java).isEqualTo("Hello, ann!")
        }
        client.get().uri("/greeting?user=ann").exchange()
            .expectStatus().isEqualTo(429)
            .expectHeader().valueEquals("Retry-After", "30")
            .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
            .expectBody(String::class.java).value { body -> assertThat(body).contains("\"status\":429") }
        // another key has its own counter
        client.get().uri("/greeting?user=bob").exchange().expectStatus().isOk
        assertThat(used(reactive, "greeting", "ann")).isEqualTo(2)
        assertThat(used(reactive, "greeting", "bob")).isEqualTo(1)
    }

    @Test
    fun aFlowIsLimitedOncePerCollection() {
        client.get().uri("/numbers").exchange()
            .expectStatus().isOk
            .expectHeader().valueEquals("X-RateLimit-Remaining", "0")
            .expectBody(String::class.java).isEqualTo("[1,2,3]")
        client.get().uri("/numbers").exchange()
            .expectStatus().isEqualTo(429)
            .expectHeader().valueEquals("Retry-After", "30")
        assertThat(used(reactive, "numbers", "ip:127.0.0.1")).isEqualTo(1)
    }

    @Test
    fun aSuspendServiceMethodIsLimitedByItsArgumentAndItsRejectionIsA429() {
        client.get().uri("/orders/7").exchange().expectStatus().isOk
            .expectBody(String::class.java).isEqualTo("order 7")
        client.get().uri("/orders/7").exchange().expectStatus().isEqualTo(429)
            .expectHeader().valueEquals("Retry-After", "30")
        client.get().uri("/orders/8").exchange().expectStatus().isOk
        assertThat(used(reactive, "load", "7")).isEqualTo(1)
        assertThat(used(reactive, "load", "8")).isEqualTo(1)
        client.delete().uri("/orders/7").exchange().expectStatus().isOk
        client.delete().uri("/orders/7").exchange().expectStatus().isEqualTo(429)
        assertThat(used(reactive, "cancel", "7")).isEqualTo(1)
    }

    @Test
    fun aSuspendHandlerInFlightGivesItsSlotBackWhenItReturnsAndWhenItsCoroutineIsCancelled() {
        for (i in 1..3) {
            client.get().uri("/in-flight-quick").exchange().expectStatus().isOk
                .expectBody(String::class.java).isEqualTo("quick")
        }
        val impatient = client.mutate().responseTimeout(Duration.ofMillis(500)).build()
        assertThatIllegalStateException().isThrownBy { impatient.get().uri("/in-flight-held").exchange() }
        // the client went away: WebFlux cancels the handler's coroutine, which ends the call
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .untilAsserted { assertThat(used(reactive, "held", "held")).isZero() }
    }

    @Test
    fun aSuspendHandlerThatFailsGivesItsPermitsBack() {
        client.get().uri("/failing").exchange().expectStatus().is5xxServerError
        assertThat(used(reactive, "failing", "ip:127.0.0.1")).isZero()
    }

    @Test
    fun blockHoundFailsABlockingCallOnTheServersThreads() {
        client.get().uri("/blocking").exchange().expectStatus().is5xxServerError
    }

    @Test
    fun aSuspendSpringMvcHandlerIsLimitedWithHeadersAndA429() {
        WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java, LimiterAutoConfiguration::class.java))
            .withUserConfiguration(ServletApplication::class.java)
            .withPropertyValues("limiter.rejection-cache.enabled=false")
            .withBean(LettuceConnectionFactory::class.java, { LettuceConnectionFactory(RedisStandaloneConfiguration(redis.host(), redis.port())) })
            .run { context ->
                assertThat(context).hasNotFailed()
                val mvc = MockMvcBuilders.webAppContextSetup(context).build()
                for (remaining in listOf("1", "0")) {
                    val started = mvc.perform(get("/mvc-greeting").param("user", "cy")).andReturn()
                    val response = mvc.perform(asyncDispatch(started)).andReturn().response
                    assertThat(response.status).isEqualTo(200)
                    assertThat(response.contentAsString).isEqualTo("Hello, cy!")
                    assertThat(response.getHeader("X-RateLimit-Remaining")).isEqualTo(remaining)
                }
                val started = mvc.perform(get("/mvc-greeting").param("user", "cy")).andReturn()
                val rejected = mvc.perform(asyncDispatch(started)).andReturn().response
                assertThat(rejected.status).isEqualTo(429)
                assertThat(rejected.getHeader("Retry-After")).isEqualTo("30")
                assertThat(rejected.contentType).startsWith(MediaType.APPLICATION_PROBLEM_JSON_VALUE)
                assertThat(used(context, "greeting", "cy")).isEqualTo(2)
            }
    }

    @Test
    fun theGuidesExampleIsTheCodeThisTestRuns() {
        val guide = Files.readString(Path.of("..", "docs", "guide.md"))
        val section = guide.substring(guide.indexOf("## Kotlin coroutines"))
        val example = section.substring(section.indexOf("```kotlin\n") + 10, section.indexOf("```\n", 10))
        val source = Files.readString(
            Path.of("src", "test", "kotlin", "dev", "limiter", "web", "CoroutineRateLimitIntegrationTests.kt"),
        ).lines().joinToString("\n") { it.removePrefix("        ") }
        assertThat(example.trim()).isNotEmpty()
        assertThat(source).contains(example.trim())
    }

    private fun used(context: ApplicationContext, method: String, caller: String): Long {
        val operation = context.getBean(RateLimitOperationSource::class.java).operations
            .first { it.method.name == method }
        return context.getBean(RateLimiter::class.java).usage(operation.key(caller), operation.limits)[0].used()
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    class ReactiveApplication {

        @Bean
        fun greetings() = Greetings()

        @Bean
        fun orders() = Orders()

        @Bean
        fun orderController(orders: Orders) = OrderController(orders)

    }

    @RestController
    class Greetings {

        @RateLimit(period = 30, threshold = 2, key = "#user")
        @GetMapping("/greeting")
        suspend fun greeting(@RequestParam user: String): String {
            delay(1)
            return "Hello, $user!"
        }

        @RateLimit(period = 30, threshold = 1)
        @GetMapping("/numbers")
        fun numbers(): Flow<Int> = flow {
            emit(1)
            delay(1)
            emit(2)
            emit(3)
        }

        @RateLimit(period = 30, threshold = 5, refundOn = [IllegalStateException::class])
        @GetMapping("/failing")
        suspend fun failing(): String {
            delay(1)
            throw IllegalStateException("failed")
        }

        @RateLimit(algorithm = [Algorithm.IN_FLIGHT], period = 30, threshold = 1, key = "'held'")
        @GetMapping("/in-flight-held")
        suspend fun held(): String {
            delay(60_000)
            return "done"
        }

        @RateLimit(algorithm = [Algorithm.IN_FLIGHT], period = 30, threshold = 1, key = "'quick'")
        @GetMapping("/in-flight-quick")
        suspend fun quick(): String {
            delay(1)
            return "quick"
        }

        @GetMapping("/blocking")
        suspend fun blocking(): String {
            Thread.sleep(1)
            return "blocked"
        }

    }

    open class Orders {

        @RateLimit(period = 30, threshold = 1, key = "#id")
        open suspend fun load(id: String): String {
            delay(1)
            return "order $id"
        }

        // #p0: the first parameter, the Continuation the compiler adds being none of them
        @RateLimit(period = 30, threshold = 1, key = "#p0")
        open suspend fun cancel(id: String): String {
            delay(1)
            return "cancelled $id"
        }

    }

    @RestController
    class OrderController(private val orders: Orders) {

        @GetMapping("/orders/{id}")
        suspend fun order(@PathVariable id: String): String = orders.load(id)

        @DeleteMapping("/orders/{id}")
        suspend fun cancel(@PathVariable id: String): String = orders.cancel(id)

    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    class ServletApplication {

        @Bean
        fun servletGreetings() = ServletGreetings()

    }

    @RestController
    class ServletGreetings {

        @RateLimit(period = 30, threshold = 2, key = "#user")
        @GetMapping("/mvc-greeting")
        suspend fun greeting(@RequestParam user: String): String {
            delay(1)
            return "Hello, $user!"
        }

    }

}
