package dev.sluice.broker.upstream;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import javax.net.SocketFactory;

/**
 * PgJDBC socket factory that reaches a PostgreSQL on the same host through its Unix-domain socket
 * file instead of TCP. Named in the upstream URL; host and port of the URL are then only labels.
 *
 * <p>Why: logical replication sends one message per row change and PostgreSQL's walsender flushes
 * each to the socket. On loopback TCP that send costs the walsender most of its CPU (the sender runs
 * the receiver's TCP path too), so capture of a co-located database reads about twice as fast over
 * the socket file (docs/CAPTURE.md).
 *
 * <pre>{@code
 * jdbc:postgresql://localhost:5432/app?socketFactory=dev.sluice.broker.upstream.UnixSocketFactory
 *     &socketFactoryArg=/var/run/postgresql
 * }</pre>
 */
public final class UnixSocketFactory extends SocketFactory {

  private final Path socketFile;

  /**
   * @param socketFile the server's socket file ({@code <unix_socket_directories>/.s.PGSQL.<port>}), or its
   *                   directory (as libpq's {@code host=}; the port then comes from the URL), PgJDBC's
   *                   {@code socketFactoryArg}
   */
  public UnixSocketFactory(String socketFile) {
    if (socketFile == null || socketFile.isBlank()) {
      throw new IllegalArgumentException("UnixSocketFactory needs socketFactoryArg=<path of the server's socket file>,"
          + " e.g. /var/run/postgresql/.s.PGSQL.5432");
    }
    this.socketFile = Path.of(socketFile);
  }

  /** The socket file (or its directory) every socket of this factory connects to. */
  public Path socketFile() {
    return socketFile;
  }

  /** An unconnected socket: PgJDBC connects it with its own timeout. */
  @Override
  public Socket createSocket() throws IOException {
    return new UnixDomainSocket(socketFile);
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return connected();
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
    return connected();
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connected();
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    return connected();
  }

  private Socket connected() throws IOException {
    Socket s = createSocket();
    s.connect(null);
    return s;
  }
}
