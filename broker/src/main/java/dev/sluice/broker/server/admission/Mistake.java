package dev.sluice.broker.server.admission;

import io.vertx.grpc.common.GrpcStatus;

/**
 * What a client can get wrong at the gRPC transport, with the status its stream is answered with and the
 * {@code reason} tag of {@code sluice.grpc.rejected}.
 */
public enum Mistake {
  /** A message flagged compressed on a request that names no {@code grpc-encoding} (gRPC spec: INTERNAL). */
  COMPRESSED_WITHOUT_ENCODING(GrpcStatus.INTERNAL),
  /** A {@code grpc-encoding} this broker cannot decode. */
  UNSUPPORTED_ENCODING(GrpcStatus.UNIMPLEMENTED),
  /** A message flagged compressed that does not decompress with its encoding, or decompresses too large. */
  UNDECOMPRESSIBLE(GrpcStatus.INTERNAL),
  /** Bytes that are not the request message of the method. */
  MALFORMED_MESSAGE(GrpcStatus.INVALID_ARGUMENT),
  /** A unary call half-closed without its request message, or with more than one. */
  NOT_ONE_REQUEST_MESSAGE(GrpcStatus.INTERNAL);

  private final GrpcStatus status;

  Mistake(GrpcStatus status) {
    this.status = status;
  }

  public GrpcStatus status() {
    return status;
  }

  /** The meter tag: the name in lower case. */
  public String tag() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
