package dev.sluice.testing.containers;

import java.util.regex.Pattern;
import org.testcontainers.containers.Network;

/**
 * A single-node Kafka 4 (KRaft, broker and controller in one JVM) of the image {@code it/docker/kafka}. Its
 * INTERNAL listener serves the containers of the network at {@link #networkBootstrapServers()}, its
 * EXTERNAL one the test at {@link #bootstrapServers()}; the published port is chosen before the broker
 * starts, so the address it advertises is the one the test connects to.
 *
 * <pre>{@code
 * try (Network net = Network.newNetwork(); KafkaContainer kafka = new KafkaContainer(net, "kafka")) {
 *   kafka.start();
 *   props.put("bootstrap.servers", kafka.bootstrapServers());   // 127.0.0.1:<published port>
 * }
 * }</pre>
 */
public final class KafkaContainer extends LocalContainer<KafkaContainer> {

  /** For the containers of the network. */
  public static final int INTERNAL_PORT = 9092;
  /** Published on 127.0.0.1 for the test. */
  public static final int EXTERNAL_PORT = 9094;

  private static final Pattern READY = Pattern.compile("Kafka Server started");

  public KafkaContainer(Network network, String alias) {
    super(TestImage.of("kafka"), network, alias, READY);
    publishAtFixedPort(EXTERNAL_PORT);
    withEnv("KAFKA_HEAP_OPTS", "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
  }

  @Override
  protected void configure() {
    super.configure();   // chooses the host port first
    withEnv("KAFKA_ADVERTISED_LISTENERS", "INTERNAL://" + networkAddress(INTERNAL_PORT) + ",EXTERNAL://"
        + hostAddress(EXTERNAL_PORT));
  }

  public String bootstrapServers() {
    return hostAddress(EXTERNAL_PORT);
  }

  public String networkBootstrapServers() {
    return networkAddress(INTERNAL_PORT);
  }
}
