package dev.sluice.testing.containers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A TCP port nothing listens on right now on 127.0.0.1 (the OS picks it; another process could take it later, rarely). */
final class LoopbackPort {

  private LoopbackPort() {}

  static int free() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }
}
