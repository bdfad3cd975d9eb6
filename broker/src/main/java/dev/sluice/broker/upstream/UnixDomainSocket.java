package dev.sluice.broker.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Set;

/**
 * A {@link java.net.Socket} over the JDK's Unix-domain {@link SocketChannel}, so PgJDBC (which only
 * speaks {@code Socket}) can reach a PostgreSQL on the same host through its socket file.
 *
 * <p>Only what a socket of a byte stream means on a Unix-domain socket is supported: connect (to the
 * path given at construction, whatever address the caller passes), streams, {@code SO_TIMEOUT} on
 * reads, buffer sizes, shutdown and close. TCP options ({@code TCP_NODELAY}, keep-alive, linger) are
 * accepted and ignored: they have no meaning here. {@link #bind} is refused.
 *
 * <p>Threads: one reader and one writer at a time (PgJDBC's use); {@link #close} from any thread
 * wakes both.
 *
 * <pre>{@code
 * Socket s = new UnixDomainSocket(Path.of("/var/run/postgresql/.s.PGSQL.5432"));
 * s.connect(null, 5_000);
 * s.getOutputStream().write(startupMessage);
 * }</pre>
 */
public final class UnixDomainSocket extends java.net.Socket {

  private final Path path;
  private final Object connectLock = new Object();
  private volatile Path connectedFile;
  private volatile ChannelStreams streams;   // null until connected
  private volatile int soTimeoutMillis;
  private volatile boolean closed;
  private volatile boolean inputShutdown;
  private volatile boolean outputShutdown;

  /**
   * An unconnected socket that will connect to {@code path}: a socket file, or a directory holding
   * PostgreSQL's {@code .s.PGSQL.<port>} (the port is then taken from the address given to connect).
   */
  public UnixDomainSocket(Path path) throws SocketException {
    super((java.net.SocketImpl) null);
    this.path = path;
  }

  /** The socket file (or its directory) this socket connects to. */
  public Path path() {
    return path;
  }

  @Override
  public void connect(SocketAddress address) throws IOException {
    connect(address, 0);
  }

  /**
   * Connects to the socket file. Of the address PgJDBC passes (the URL's host and port) only the port
   * is used, and only when this socket was given a directory.
   */
  @Override
  public void connect(SocketAddress address, int timeoutMillis) throws IOException {
    synchronized (connectLock) {
      if (closed) {
        throw new SocketException("Socket is closed");
      }
      if (streams != null) {
        throw new SocketException("already connected to " + connectedFile);
      }
      Path file = socketFile(address);
      SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
      try {
        // A Unix-domain connect does not wait on a network, so the timeout has nothing to bound.
        ch.connect(UnixDomainSocketAddress.of(file));
        streams = ChannelStreams.open(ch, file, () -> soTimeoutMillis, this);
        connectedFile = file;
      } catch (IOException e) {
        ch.close();
        SocketException wrapped = new SocketException(
            "cannot connect to the PostgreSQL socket " + file + ": " + e.getMessage()
                + " (is the server running, and is this the socket file of its unix_socket_directories and port?)");
        wrapped.initCause(e);
        throw wrapped;
      }
    }
  }

  private Path socketFile(SocketAddress address) {
    if (!java.nio.file.Files.isDirectory(path)) {
      return path;
    }
    int port = address instanceof java.net.InetSocketAddress inet && inet.getPort() > 0 ? inet.getPort() : 5432;
    return path.resolve(".s.PGSQL." + port);
  }

  @Override
  public void bind(SocketAddress local) throws IOException {
    if (local != null) {
      throw new SocketException("a Unix-domain socket to PostgreSQL cannot bind a local address, got " + local);
    }
  }

  @Override
  public InputStream getInputStream() throws IOException {
    requireOpen();
    return streams.input();
  }

  @Override
  public OutputStream getOutputStream() throws IOException {
    requireOpen();
    return streams.output();
  }

  @Override
  public void setSoTimeout(int timeout) throws SocketException {
    if (timeout < 0) {
      throw new IllegalArgumentException("timeout must be >= 0, got " + timeout);
    }
    soTimeoutMillis = timeout;
  }

  @Override
  public int getSoTimeout() {
    return soTimeoutMillis;
  }

  @Override
  public void setReceiveBufferSize(int size) throws SocketException {
    setChannelOption(StandardSocketOptions.SO_RCVBUF, size);
  }

  @Override
  public int getReceiveBufferSize() throws SocketException {
    return getChannelOption(StandardSocketOptions.SO_RCVBUF, ChannelStreams.READ_BUFFER_BYTES);
  }

  @Override
  public void setSendBufferSize(int size) throws SocketException {
    setChannelOption(StandardSocketOptions.SO_SNDBUF, size);
  }

  @Override
  public int getSendBufferSize() throws SocketException {
    return getChannelOption(StandardSocketOptions.SO_SNDBUF, ChannelStreams.READ_BUFFER_BYTES);
  }

  @Override
  public void setTcpNoDelay(boolean on) {
    // No Nagle on a Unix-domain socket: every write is delivered as it is made.
  }

  @Override
  public boolean getTcpNoDelay() {
    return true;
  }

  @Override
  public void setKeepAlive(boolean on) {
    // No keep-alive probes on a Unix-domain socket: a dead peer closes the file at once.
  }

  @Override
  public boolean getKeepAlive() {
    return false;
  }

  @Override
  public void setSoLinger(boolean on, int linger) {
    // Nothing to linger for: close hands the buffered bytes to the peer's socket immediately.
  }

  @Override
  public int getSoLinger() {
    return -1;
  }

  @Override
  public void setTrafficClass(int tc) {
    // IP type-of-service has no meaning without IP.
  }

  @Override
  public int getTrafficClass() {
    return 0;
  }

  @Override
  public void setReuseAddress(boolean on) {
    // Nothing is bound locally, so there is no address to reuse.
  }

  @Override
  public boolean getReuseAddress() {
    return false;
  }

  @Override
  public void setOOBInline(boolean on) throws SocketException {
    if (on) {
      throw new SocketException("a Unix-domain socket has no urgent data");
    }
  }

  @Override
  public boolean getOOBInline() {
    return false;
  }

  @Override
  public void sendUrgentData(int data) throws IOException {
    throw new SocketException("a Unix-domain socket has no urgent data");
  }

  @Override
  public <T> java.net.Socket setOption(SocketOption<T> name, T value) throws IOException {
    if (name == StandardSocketOptions.SO_RCVBUF || name == StandardSocketOptions.SO_SNDBUF) {
      setChannelOption(name, value);
      return this;
    }
    throw new UnsupportedOperationException("'" + name + "' is not supported on a Unix-domain socket");
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> T getOption(SocketOption<T> name) throws IOException {
    if (name == StandardSocketOptions.SO_RCVBUF || name == StandardSocketOptions.SO_SNDBUF) {
      return (T) Integer.valueOf(getChannelOption((SocketOption<Integer>) name, ChannelStreams.READ_BUFFER_BYTES));
    }
    throw new UnsupportedOperationException("'" + name + "' is not supported on a Unix-domain socket");
  }

  @Override
  public Set<SocketOption<?>> supportedOptions() {
    return Set.of(StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_SNDBUF);
  }

  @Override
  public InetAddress getInetAddress() {
    return null;
  }

  @Override
  public InetAddress getLocalAddress() {
    return InetAddress.getLoopbackAddress();
  }

  @Override
  public int getPort() {
    return 0;
  }

  @Override
  public int getLocalPort() {
    return -1;
  }

  @Override
  public SocketAddress getRemoteSocketAddress() {
    return streams == null ? null : UnixDomainSocketAddress.of(connectedFile);
  }

  @Override
  public SocketAddress getLocalSocketAddress() {
    return null;
  }

  @Override
  public SocketChannel getChannel() {
    // The channel is non-blocking and owned by this socket's streams; handing it out would bypass them.
    return null;
  }

  @Override
  public boolean isConnected() {
    return streams != null;
  }

  @Override
  public boolean isBound() {
    return streams != null;
  }

  @Override
  public boolean isClosed() {
    return closed;
  }

  @Override
  public boolean isInputShutdown() {
    return inputShutdown;
  }

  @Override
  public boolean isOutputShutdown() {
    return outputShutdown;
  }

  @Override
  public void shutdownInput() throws IOException {
    requireOpen();
    streams.channel().shutdownInput();
    inputShutdown = true;
  }

  @Override
  public void shutdownOutput() throws IOException {
    requireOpen();
    streams.channel().shutdownOutput();
    outputShutdown = true;
  }

  @Override
  public void close() throws IOException {
    synchronized (connectLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    ChannelStreams s = streams;
    if (s != null) {
      s.close();
    }
  }

  @Override
  public String toString() {
    return "UnixDomainSocket[" + (connectedFile != null ? connectedFile : path) + (closed ? ", closed" : streams != null ? ", connected" : "") + "]";
  }

  private void requireOpen() throws SocketException {
    if (closed) {
      throw new SocketException("Socket is closed");
    }
    if (streams == null) {
      throw new SocketException("Socket is not connected");
    }
  }

  private <T> void setChannelOption(SocketOption<T> name, T value) throws SocketException {
    requireOpen();
    try {
      streams.channel().setOption(name, value);
    } catch (IOException e) {
      throw asSocketException(e);
    }
  }

  private int getChannelOption(SocketOption<Integer> name, int unconnected) throws SocketException {
    if (streams == null) {
      return unconnected;
    }
    requireOpen();
    try {
      return streams.channel().getOption(name);
    } catch (IOException e) {
      throw asSocketException(e);
    }
  }

  private SocketException asSocketException(IOException e) {
    if (e instanceof SocketException s) {
      return s;
    }
    SocketException s = new SocketException(closed ? "Socket is closed" : e.getMessage());
    s.initCause(e);
    return s;
  }
}
