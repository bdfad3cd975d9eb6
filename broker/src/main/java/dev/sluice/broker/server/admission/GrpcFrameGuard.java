package dev.sluice.broker.server.admission;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.http.HttpServerRequestInternal;
import io.vertx.core.internal.http.HttpServerRequestWrapper;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * What the gRPC server of Vert.x cannot answer itself, answered before it sees the request: a
 * {@code grpc-encoding} it cannot decode (UNIMPLEMENTED at once, with {@code grpc-accept-encoding}), and
 * a message flagged compressed on a request that names no encoding (Vert.x threw "Handle me" from its
 * deframer and left the stream hanging). For the latter the guard reads the 5-byte prefix of each
 * message as the data passes, stops the data at the first such message and fails the gRPC request with
 * a {@link GrpcRejection}, which the method's handler answers with its status; once that answer is
 * written the stream is reset (NO_ERROR) if the client still has its side open. Other streams of the
 * connection are not touched.
 *
 * <pre>{@code
 * httpServer.requestHandler(req -> GrpcFrameGuard.handle(req, grpcServer, mistakes));
 * }</pre>
 */
public final class GrpcFrameGuard extends HttpServerRequestWrapper {

  static final Set<String> ENCODINGS = Set.of("identity", "gzip");
  static final String ACCEPTED = "gzip";
  private static final int PREFIX_BYTES = 5;

  private final ClientMistakes mistakes;
  private final boolean identity;
  private Handler<Throwable> exceptionHandler;
  private boolean rejected;
  // where the data stands in the framing: a prefix being read, or message bytes left to pass
  private final byte[] prefix = new byte[PREFIX_BYTES];
  private int prefixBytes;
  private long messageBytesLeft;

  private GrpcFrameGuard(HttpServerRequestInternal delegate, boolean identity, ClientMistakes mistakes) {
    super(delegate);
    this.identity = identity;
    this.mistakes = mistakes;
  }

  /** Hands {@code request} to {@code grpc} guarded, or answers it here when its encoding is refused. */
  public static void handle(HttpServerRequest request, Handler<HttpServerRequest> grpc, ClientMistakes mistakes) {
    String encoding = request.getHeader("grpc-encoding");
    if (encoding != null && !ENCODINGS.contains(encoding)) {
      GrpcRejection r = new GrpcRejection(Mistake.UNSUPPORTED_ENCODING, "grpc-encoding " + encoding
          + " is not supported; this broker accepts identity and gzip");
      mistakes.report(r, request);
      answerTrailersOnly(request, r);
      return;
    }
    grpc.handle(new GrpcFrameGuard((HttpServerRequestInternal) request, encoding == null || encoding.equals("identity"),
        mistakes));
  }

  @Override
  public HttpServerRequest handler(Handler<Buffer> handler) {
    delegate.handler(handler == null ? null : chunk -> {
      if (!rejected && admits(chunk)) {
        handler.handle(chunk);
      }
    });
    return this;
  }

  @Override
  public HttpServerRequest exceptionHandler(Handler<Throwable> handler) {
    exceptionHandler = handler;
    delegate.exceptionHandler(handler);
    return this;
  }

  /** Reads the prefixes in {@code chunk}; false (and the request failed) at a compressed message without encoding. */
  private boolean admits(Buffer chunk) {
    int at = 0;
    int length = chunk.length();
    while (at < length) {
      if (messageBytesLeft > 0) {
        int skip = (int) Math.min(messageBytesLeft, length - at);
        at += skip;
        messageBytesLeft -= skip;
        continue;
      }
      prefix[prefixBytes++] = chunk.getByte(at++);
      if (prefixBytes == PREFIX_BYTES) {
        prefixBytes = 0;
        messageBytesLeft = ((prefix[1] & 0xffL) << 24) | ((prefix[2] & 0xffL) << 16) | ((prefix[3] & 0xffL) << 8)
            | (prefix[4] & 0xffL);
        if (identity && prefix[0] != 0) {
          reject(new GrpcRejection(Mistake.COMPRESSED_WITHOUT_ENCODING, "a message is flagged compressed but the request"
              + " names no grpc-encoding; send it uncompressed (flag 0) or set grpc-encoding: gzip"));
          return false;
        }
      }
    }
    return true;
  }

  private void reject(GrpcRejection rejection) {
    rejected = true;
    mistakes.report(rejection, delegate);
    HttpServerResponse response = delegate.response();
    // once the method's handler has answered (synchronously, from the exception below), end the stream
    response.endHandler(v -> delegate.context().runOnContext(x -> resetIfOpen(delegate)));
    if (exceptionHandler != null) {
      exceptionHandler.handle(rejection);
    } else {
      answerTrailersOnly(delegate, rejection);
    }
  }

  private static void resetIfOpen(HttpServerRequest request) {
    if (!request.isEnded() && !request.response().closed()) {
      request.response().reset(0);   // NO_ERROR: the answer is complete, stop sending
    }
  }

  /** A gRPC answer of headers only (no message), then the stream closed. */
  static void answerTrailersOnly(HttpServerRequest request, GrpcRejection rejection) {
    HttpServerResponse response = request.response();
    response.setStatusCode(200).putHeader("content-type", "application/grpc")
        .putHeader("grpc-status", Integer.toString(rejection.status().code))
        .putHeader("grpc-message", percentEncoded(rejection.getMessage()));
    if (rejection.mistake() == Mistake.UNSUPPORTED_ENCODING) {
      response.putHeader("grpc-accept-encoding", ACCEPTED);
    }
    response.end().onComplete(v -> resetIfOpen(request));
  }

  /** The gRPC spec's encoding of grpc-message: UTF-8, bytes outside 0x20-0x7e and '%' as %XX. */
  static String percentEncoded(String message) {
    StringBuilder out = new StringBuilder(message.length());
    for (byte b : message.getBytes(StandardCharsets.UTF_8)) {
      if (b >= 0x20 && b <= 0x7e && b != '%') {
        out.append((char) b);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return out.toString();
  }
}
