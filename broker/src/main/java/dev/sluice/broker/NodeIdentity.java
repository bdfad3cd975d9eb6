package dev.sluice.broker;

import java.security.SecureRandom;

/**
 * Who this broker process is: a stable node id, a random incarnation picked at start (a new value
 * tells collectors the broker restarted and lost its in-memory dispatcher state) and its addresses.
 *
 * <pre>{@code
 * NodeIdentity me = NodeIdentity.fresh("node-1", "127.0.0.1:8300", "127.0.0.1:8301");
 * }</pre>
 */
public record NodeIdentity(String nodeId, long incarnation, String grpcAddress, String adminAddress) {

  private static final SecureRandom RANDOM = new SecureRandom();

  public NodeIdentity {
    if (nodeId == null || !nodeId.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")) {
      throw new IllegalArgumentException("node id must be 1-63 of [A-Za-z0-9_.-] starting with a letter or digit,"
          + " got '" + nodeId + "'");
    }
  }

  /** A new incarnation of {@code nodeId}. */
  public static NodeIdentity fresh(String nodeId, String grpcAddress, String adminAddress) {
    long inc;
    do {
      inc = RANDOM.nextLong();
    } while (inc == 0);
    return new NodeIdentity(nodeId, inc, grpcAddress, adminAddress);
  }

  public NodeIdentity withAddresses(String grpc, String admin) {
    return new NodeIdentity(nodeId, incarnation, grpc, admin);
  }
}
