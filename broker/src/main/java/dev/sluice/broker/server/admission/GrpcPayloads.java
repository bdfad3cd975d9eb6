package dev.sluice.broker.server.admission;

import io.vertx.grpc.common.GrpcMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.zip.GZIPInputStream;

/**
 * The bytes of a received gRPC message, decompressed by its encoding ({@code identity} or {@code gzip})
 * and never beyond a size limit (a small gzip can inflate to gigabytes); anything else is a
 * {@link GrpcRejection} naming what was wrong.
 *
 * <pre>{@code
 * byte[] bytes = GrpcPayloads.bytes(message, 4 << 20);
 * }</pre>
 */
public final class GrpcPayloads {

  private GrpcPayloads() {}

  /**
   * @throws GrpcRejection UNDECOMPRESSIBLE when a gzip message does not inflate or inflates beyond
   *     {@code maxBytes}; UNSUPPORTED_ENCODING for another encoding
   */
  public static byte[] bytes(GrpcMessage message, int maxBytes) {
    return switch (message.encoding()) {
      case "identity" -> message.payload().getBytes();
      case "gzip" -> gunzip(message.payload().getBytes(), maxBytes);
      default -> throw new GrpcRejection(Mistake.UNSUPPORTED_ENCODING, "grpc-encoding " + message.encoding()
          + " is not supported; this broker accepts identity and gzip");
    };
  }

  private static byte[] gunzip(byte[] compressed, int maxBytes) {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
      byte[] out = in.readNBytes(maxBytes + 1);
      if (out.length > maxBytes) {
        throw new GrpcRejection(Mistake.UNDECOMPRESSIBLE, "a gzip message of " + compressed.length
            + " bytes decompresses to more than " + maxBytes + " bytes, the limit of one message");
      }
      return out;
    } catch (IOException e) {
      throw new GrpcRejection(Mistake.UNDECOMPRESSIBLE, "could not decompress a message of " + compressed.length
          + " bytes flagged compressed with grpc-encoding gzip: " + e.getMessage());
    }
  }
}
