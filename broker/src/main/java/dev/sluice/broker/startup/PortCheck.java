package dev.sluice.broker.startup;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Checks that a port can be listened on before the broker creates anything, so a taken port is
 * refused by name (which port, which setting, what to do) instead of failing after the replication
 * slot was created. Binds and closes at once, with {@code SO_REUSEADDR} as the real listeners use, so a
 * port in TIME_WAIT is not refused. Port 0 (any free port) always passes.
 *
 * <pre>{@code
 * PortCheck.requireFree(new PortCheck.Port("gRPC", "127.0.0.1", 8300, "serve.grpcPort", "--grpc-port",
 *     "SLUICE_SERVE_GRPC_PORT", "the default"));
 * }</pre>
 */
public final class PortCheck {

  private PortCheck() {}

  /**
   * A port the broker is about to listen on.
   *
   * @param what   which listener ("gRPC", "admin HTTP")
   * @param host   interface it binds
   * @param port   the port; 0 = any free port
   * @param key    the configuration key that sets it
   * @param flag   the flag that sets it
   * @param env    the environment variable that sets it
   * @param source where the value came from ("flag --grpc-port", "the default")
   */
  public record Port(String what, String host, int port, String key, String flag, String env, String source) {}

  /**
   * @throws StartupCheckException when the port is taken or the interface cannot be bound, naming both
   */
  public static void requireFree(Port p) {
    if (p.port() == 0) {
      return;
    }
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(p.host(), p.port()));
    } catch (BindException e) {
      String reason = String.valueOf(e.getMessage());
      if (reason.contains("in use")) {
        throw new StartupCheckException(p.what() + " port " + p.port() + " on " + p.host() + " is already in use by"
            + " another process (" + p.key() + " = " + p.port() + ", from " + p.source() + "): stop that process"
            + " (ss -ltnp 'sport = :" + p.port() + "' names it) or choose another port with " + p.flag() + ", "
            + p.env() + " or " + p.key() + " in the configuration file; nothing was started", e);
      }
      throw new StartupCheckException("cannot listen on " + p.host() + ":" + p.port() + " for the " + p.what()
          + " port (" + p.key() + ", from " + p.source() + "): " + reason + "; check serve.bind (--bind) names an"
          + " address of this host and the port is allowed for this user", e);
    } catch (IOException | IllegalArgumentException | SecurityException e) {
      throw new StartupCheckException("cannot listen on " + p.host() + ":" + p.port() + " for the " + p.what()
          + " port (" + p.key() + ", from " + p.source() + "): " + e, e);
    }
  }
}
