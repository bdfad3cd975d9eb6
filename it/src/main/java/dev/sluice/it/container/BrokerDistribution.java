package dev.sluice.it.container;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The broker as {@code make run} runs it, for a node container to run: {@code broker/target/sluice.jar}
 * and the {@code lib/} its manifest names, when the build made one. Found through
 * {@code -Dsluice.broker.target} (failsafe sets it), else {@code broker/target} above the working
 * directory.
 *
 * <pre>{@code
 * BrokerDistribution broker = BrokerDistribution.locate();   // fails with the command that builds it
 * }</pre>
 *
 * @param jar the broker's jar
 * @param lib its dependencies, or empty when the jar carries them
 */
public record BrokerDistribution(Path jar, Optional<Path> lib) {

  static final String TARGET_PROPERTY = "sluice.broker.target";

  public static BrokerDistribution locate() {
    Path target = target();
    Path jar = target.resolve("sluice.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no broker jar at " + jar + ": the node containers run the broker of this"
          + " checkout; build it first (mvn -DskipTests install, or make build)");
    }
    Path lib = target.resolve("lib");
    return new BrokerDistribution(jar, Files.isDirectory(lib) ? Optional.of(lib) : Optional.empty());
  }

  private static Path target() {
    String configured = System.getProperty(TARGET_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("broker/target"))) {
        return d.resolve("broker/target");
      }
    }
    throw new IllegalStateException("no broker/target above " + Path.of("").toAbsolutePath() + " and no -D"
        + TARGET_PROPERTY + "=<the checkout's broker/target>");
  }
}
