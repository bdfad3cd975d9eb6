package dev.sluice.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on 127.0.0.1 for processes that must keep their port across a restart (a broker
 * restarted after kill -9 is found again at the same address).
 *
 * <p>Ports come from below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}): a port the OS
 * picked for a listener (port 0) is one it also gives to outgoing connections, so while a test started
 * several brokers, each with PostgreSQL, cluster and gRPC connections, one of those took a port handed out
 * for a broker before the broker bound it ({@code BindException: Address already in use}). None is handed out
 * twice by this JVM.
 *
 * <pre>{@code
 * int grpc = LoopbackPorts.free();
 * }</pre>
 */
public final class LoopbackPorts {

  /** The lowest port handed out: above the well-known and most registered service ports. */
  private static final int LOWEST = 20_000;
  private static final int[] EPHEMERAL = ephemeralRange();
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private LoopbackPorts() {}

  /** A port nothing listens on right now, outside the ephemeral range and not handed out before by this JVM. */
  public static int free() {
    int below = EPHEMERAL[0];
    if (below - LOWEST >= 1_000) {
      for (int attempt = 0; attempt < 500; attempt++) {
        int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
        if (HANDED_OUT.add(port) && bindable(port)) {
          return port;
        }
      }
    }
    // no room below the ephemeral range (an unusual kernel setting): let the OS pick
    for (int attempt = 0; attempt < 100; attempt++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("no free loopback port", e);
      }
    }
    throw new IllegalStateException("no free loopback port in 100 attempts");
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code [low, high]} of {@code /proc/sys/net/ipv4/ip_local_port_range}; Linux's default when unreadable. */
  private static int[] ephemeralRange() {
    try {
      String[] parts = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
      return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    } catch (IOException | RuntimeException e) {
      return new int[] {32_768, 60_999};
    }
  }
}
