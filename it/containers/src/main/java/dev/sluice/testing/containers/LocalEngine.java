package dev.sluice.testing.containers;

import com.github.dockerjava.api.DockerClient;
import java.util.Map;
import org.testcontainers.DockerClientFactory;

/**
 * The Docker engine of this machine, as the container tier needs it: answering, and Testcontainers set up
 * never to fetch an image ({@link #ENVIRONMENT}): no Ryuk (each test stops what it starts, and
 * Testcontainers' JVM shutdown hook removes what a crashed test left). A missing piece fails at once with
 * what to do, instead of a timeout later.
 *
 * <pre>{@code
 * DockerClient docker = LocalEngine.client();
 * }</pre>
 */
public final class LocalEngine {

  /** Where {@code scripts/install-test-deps.sh} has dockerd log when it starts one. */
  static final String DOCKERD_LOG = "/var/log/sluice-dockerd.log";

  private LocalEngine() {}

  /** The engine's client, once {@link #require()} passed. */
  public static DockerClient client() {
    require();
    return DockerClientFactory.instance().client();
  }

  /**
   * The environment Testcontainers must see (surefire and failsafe set it, root pom.xml): each variable
   * keeps it from fetching an image. Ryuk's image cannot be had here; and on a machine with a
   * {@code /.dockerenv} file, Testcontainers without a host override starts {@code alpine} to look for a
   * gateway, while every port the tests use is published on 127.0.0.1.
   */
  static final Map<String, String> ENVIRONMENT = Map.of("TESTCONTAINERS_RYUK_DISABLED", "true",
      "TESTCONTAINERS_HOST_OVERRIDE", LocalContainer.LOOPBACK);

  /** Fails with what to do when the build did not set {@link #ENVIRONMENT} or no engine answers. */
  public static void require() {
    ENVIRONMENT.forEach((name, value) -> {
      if (!value.equals(System.getenv(name))) {
        throw new IllegalStateException(name + " is not " + value + " in this JVM's environment (it is "
            + System.getenv(name) + "): the container tier needs it, or Testcontainers would try to fetch an image."
            + " Maven's surefire and failsafe set it (root pom.xml); when a test runs from elsewhere (an IDE), set "
            + name + "=" + value + " there.");
      }
    });
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      throw new IllegalStateException("no Docker engine answers (Testcontainers tried DOCKER_HOST and"
          + " /var/run/docker.sock). The container tests need one: as root, scripts/install-test-deps.sh installs"
          + " docker.io, starts dockerd (log: " + DOCKERD_LOG + ") and builds the test images; as another user,"
          + " see \"Container tier\" in it/README.md.");
    }
  }
}
