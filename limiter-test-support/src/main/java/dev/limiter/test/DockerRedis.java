package dev.limiter.test;

import java.util.List;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis server in a Docker container, started through Testcontainers when
 * {@code -Dlimiter.test.redis-image} names an image and Docker is there. The host port is
 * fixed so that a restarted container answers where the old one did.
 */
final class DockerRedis extends RedisServer {

	private final GenericContainer<?> container;

	private DockerRedis(GenericContainer<?> container, int port) {
		super(null, port, List.of());
		this.container = container;
	}

	static RedisServer start(String image) {
		if (!DockerClientFactory.instance().isDockerAvailable()) {
			throw new IllegalStateException(
					"limiter.test.redis-image=" + image + " needs Docker, and no Docker engine answers here");
		}
		int port = freePort();
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image)).withExposedPorts(6379)
			.withCreateContainerCmdModifier((command) -> command.getHostConfig()
				.withPortBindings(new PortBinding(Ports.Binding.bindPort(port), ExposedPort.tcp(6379))));
		container.start();
		return new DockerRedis(container, port);
	}

	private DockerClient docker() {
		return DockerClientFactory.instance().client();
	}

	@Override
	public synchronized void kill() {
		docker().killContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public synchronized void pause() {
		docker().pauseContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public synchronized void resume() {
		docker().unpauseContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public synchronized void restart() {
		docker().restartContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public synchronized boolean isRunning() {
		return this.container.isRunning();
	}

	@Override
	public synchronized void close() {
		this.container.stop();
	}

}
