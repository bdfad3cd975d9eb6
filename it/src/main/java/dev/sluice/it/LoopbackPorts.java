package dev.sluice.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free TCP ports on 127.0.0.1 for processes that must keep their port across a restart (a broker
 * restarted after kill -9 is found again at the same address).
 *
 * <pre>{@code
 * int grpc = LoopbackPorts.free();
 * }</pre>
 */
public final class LoopbackPorts {

  private LoopbackPorts() {}

  /** A port nothing listens on right now (the OS picks it; another process could take it later, rarely). */
  public static int free() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }
}
