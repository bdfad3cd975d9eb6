package dev.sluice.broker.upstream;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * Blocking byte streams over one connected, non-blocking channel, for {@link UnixDomainSocket}: a read
 * waits at most the socket's {@code SO_TIMEOUT}, {@code available()} never blocks, a write waits for
 * room. (A blocking channel would ignore the timeout, which PgJDBC's replication polling relies on.)
 *
 * <p>One reader and one writer at a time; {@link #close} from any thread wakes both.
 *
 * <pre>{@code
 * ChannelStreams s = ChannelStreams.open(connectedChannel, file, socket::getSoTimeout, socket);
 * s.output().write(bytes);
 * int n = s.input().read(buf, 0, buf.length);   // SocketTimeoutException after SO_TIMEOUT ms
 * }</pre>
 */
final class ChannelStreams implements Closeable {

  /** Bytes read from the kernel per system call; PgJDBC reads from its own 8 KiB buffer on top. */
  static final int READ_BUFFER_BYTES = 64 * 1024;

  private final SocketChannel channel;
  private final Path file;
  private final IntSupplier soTimeoutMillis;
  private final Closeable owner;
  private final Selector readReady;
  private final Selector writeReady;
  private final InputStream in = new Input();
  private final OutputStream out = new Output();
  private volatile boolean closed;

  private ChannelStreams(SocketChannel channel, Path file, IntSupplier soTimeoutMillis, Closeable owner,
      Selector readReady, Selector writeReady) {
    this.channel = channel;
    this.file = file;
    this.soTimeoutMillis = soTimeoutMillis;
    this.owner = owner;
    this.readReady = readReady;
    this.writeReady = writeReady;
  }

  /**
   * Streams over {@code connected}, switched to non-blocking mode.
   *
   * @param soTimeoutMillis read timeout in ms, 0 for none, asked at every read
   * @param owner           closed when a stream is closed (a socket's streams close the socket)
   */
  static ChannelStreams open(SocketChannel connected, Path file, IntSupplier soTimeoutMillis, Closeable owner)
      throws IOException {
    connected.configureBlocking(false);
    Selector r = Selector.open();
    Selector w = null;
    try {
      w = Selector.open();
      connected.register(r, SelectionKey.OP_READ);
      connected.register(w, SelectionKey.OP_WRITE);
      return new ChannelStreams(connected, file, soTimeoutMillis, owner, r, w);
    } catch (IOException | RuntimeException e) {
      r.close();
      if (w != null) {
        w.close();
      }
      throw e;
    }
  }

  SocketChannel channel() {
    return channel;
  }

  InputStream input() {
    return in;
  }

  OutputStream output() {
    return out;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    IOException failure = null;
    for (Closeable c : new Closeable[] {readReady, writeReady, channel}) {
      // Closing a selector wakes a reader or writer blocked on it; they then see `closed`.
      try {
        c.close();
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void requireOpen() throws SocketException {
    if (closed) {
      throw new SocketException("Socket is closed");
    }
  }

  private void awaitReady(Selector selector, long timeoutMillis) throws IOException {
    try {
      selector.select(timeoutMillis);
      selector.selectedKeys().clear();
    } catch (ClosedSelectorException e) {
      throw new SocketException("Socket is closed");
    }
    requireOpen();
  }

  private SocketException closedChannel(ClosedChannelException e) {
    SocketException s = new SocketException("Socket is closed");
    s.initCause(e);
    return s;
  }

  /** Reads through a buffer of its own so {@link #available()} can tell, without blocking, whether bytes came. */
  private final class Input extends InputStream {
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(READ_BUFFER_BYTES).flip();
    private boolean eof;

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      if (!buffer.hasRemaining() && !fill(soTimeoutMillis.getAsInt())) {
        return -1;
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(b, off, n);
      return n;
    }

    /** Bytes readable now without blocking: PgJDBC polls a replication stream with this. */
    @Override
    public int available() throws IOException {
      if (!buffer.hasRemaining() && !eof) {
        readNow();
      }
      return buffer.remaining();
    }

    @Override
    public void close() throws IOException {
      owner.close();
    }

    /** Waits up to {@code timeoutMillis} (0: forever) for bytes; false at end of stream. */
    private boolean fill(int timeoutMillis) throws IOException {
      long deadline = timeoutMillis == 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMillis * 1_000_000L;
      while (true) {
        if (eof) {
          return false;
        }
        if (readNow() > 0) {
          return true;
        }
        if (eof) {
          return false;
        }
        long waitMillis = 0;
        if (deadline != Long.MAX_VALUE) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new SocketTimeoutException("Read timed out after " + timeoutMillis + " ms on " + file);
          }
          waitMillis = Math.max(1, left / 1_000_000L);
        }
        awaitReady(readReady, waitMillis);
      }
    }

    private int readNow() throws IOException {
      requireOpen();
      buffer.compact();
      try {
        int n = channel.read(buffer);
        if (n < 0) {
          eof = true;
          return 0;
        }
        return n;
      } catch (ClosedChannelException e) {
        throw closedChannel(e);
      } finally {
        buffer.flip();
      }
    }
  }

  private final class Output extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      ByteBuffer src = ByteBuffer.wrap(b, off, len);
      while (src.hasRemaining()) {
        requireOpen();
        try {
          if (channel.write(src) == 0) {
            awaitReady(writeReady, 0);
          }
        } catch (ClosedChannelException e) {
          throw closedChannel(e);
        }
      }
    }

    @Override
    public void close() throws IOException {
      owner.close();
    }
  }
}
