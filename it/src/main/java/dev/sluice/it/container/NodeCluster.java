package dev.sluice.it.container;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.testcontainers.containers.Network;

/**
 * N Sluice node containers on one network the test created, named {@code node-1} .. {@code node-N}, each
 * with its gRPC and admin ports on 127.0.0.1 ({@link SluiceNode}); started together, each node's output
 * written to {@code <logDir>/<name>.log} as it comes (the failure report of a test), and stopped together.
 * {@link #cutOff(int)} partitions a node from the network ({@code docker network disconnect}) and
 * {@link #heal(int)} connects it again under the same name.
 *
 * <pre>{@code
 * try (Network net = Network.newNetwork(); PostgresContainer pg = new PostgresContainer(net, "upstream");
 *      NodeCluster cluster = NodeCluster.start(net, 3, a -> List.of("server", "--node-id", a.name(), ...), logs)) {
 *   cluster.cutOff(3);   // node-3 is alone
 *   cluster.heal(3);
 * }
 * }</pre>
 */
public final class NodeCluster implements AutoCloseable {

  private final Network network;
  private final List<SluiceNode> nodes;
  private final Path logDir;

  private NodeCluster(Network network, List<SluiceNode> nodes, Path logDir) {
    this.network = network;
    this.nodes = List.copyOf(nodes);
    this.logDir = logDir;
  }

  /**
   * Starts {@code size} nodes on {@code network} and waits until every one serves; when one fails, all
   * are stopped and the failure names it with its last output.
   *
   * @param args the arguments of each node's {@code sluice}, from its addresses
   */
  public static NodeCluster start(Network network, int size, Function<SluiceNode.Addresses, List<String>> args,
      Path logDir) {
    if (size < 1) {
      throw new IllegalArgumentException("a cluster has at least one node, not " + size);
    }
    List<SluiceNode> nodes = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      String name = "node-" + i;
      nodes.add(new SluiceNode(network, name, args).withOutputFile(logDir.resolve(name + ".log")));
    }
    NodeCluster cluster = new NodeCluster(network, nodes, logDir);
    // a thread per node: most of a start is waiting for the node's JVM (the common pool has 1 thread on 2 cores)
    ExecutorService starters = Executors.newFixedThreadPool(size);
    try {
      CompletableFuture.allOf(nodes.stream().map(n -> CompletableFuture.runAsync(n::start, starters))
          .toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      cluster.close();
      throw e.getCause() instanceof RuntimeException r ? r : e;
    } finally {
      starters.shutdown();
    }
    return cluster;
  }

  /** {@code node-<number>}, numbered from 1. */
  public SluiceNode node(int number) {
    if (number < 1 || number > nodes.size()) {
      throw new IllegalArgumentException("no node-" + number + ": the cluster has node-1 .. node-" + nodes.size());
    }
    return nodes.get(number - 1);
  }

  public List<SluiceNode> nodes() {
    return nodes;
  }

  public Network network() {
    return network;
  }

  /** Where each node's output is written ({@code <name>.log}). */
  public Path logDir() {
    return logDir;
  }

  /** Partitions {@code node-<number>} from the network: neither its peers nor the test reach it. */
  public void cutOff(int number) {
    node(number).cutOff();
  }

  /** Connects {@code node-<number>} to the network again, under its name and at its host ports. */
  public void heal(int number) {
    node(number).heal();
  }

  /** Stops every node (their logs stay in {@link #logDir()}); the network is the test's to close. */
  @Override
  public void close() {
    RuntimeException first = null;
    for (SluiceNode n : nodes) {
      try {
        n.stop();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
