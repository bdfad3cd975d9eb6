package dev.sluice.broker.server.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.http.HttpServerRequest;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counts every stream refused for a client's mistake ({@code sluice.grpc.rejected{reason}}) and warns about
 * them through a {@link RateLimitedLog}, naming the peer, the HTTP/2 stream and the method. Thread-safe.
 *
 * <pre>{@code
 * mistakes.report(new GrpcRejection(Mistake.MALFORMED_MESSAGE, "malformed ..."), httpRequest);
 * }</pre>
 */
public final class ClientMistakes {

  private final Map<Mistake, Counter> counters = new EnumMap<>(Mistake.class);
  private final RateLimitedLog warnings;

  public ClientMistakes(MeterRegistry meters, RateLimitedLog warnings) {
    for (Mistake m : Mistake.values()) {
      counters.put(m, Counter.builder("sluice.grpc.rejected").tag("reason", m.tag())
          .description("gRPC streams refused for a client's mistake (answered with a status, the stream closed)")
          .register(meters));
    }
    this.warnings = warnings;
  }

  /** Counts and (rate-limited) warns about {@code rejection} on the stream of {@code request}. */
  public void report(GrpcRejection rejection, HttpServerRequest request) {
    report(rejection, ids(request));
  }

  /** As {@link #report(GrpcRejection, HttpServerRequest)} with the ids at hand. */
  public void report(GrpcRejection rejection, Map<String, ?> ids) {
    counters.get(rejection.mistake()).increment();
    warnings.warn(rejection.mistake().tag(), ids, "gRPC stream refused with " + rejection.status().name() + ": "
        + rejection.getMessage());
  }

  /** The rate-limited log these warnings go through, for other warnings about clients. */
  public RateLimitedLog warnings() {
    return warnings;
  }

  /** The ids of a stream in a warning: peer, HTTP/2 stream id, method path. */
  public static Map<String, Object> ids(HttpServerRequest request) {
    Map<String, Object> ids = new LinkedHashMap<>();
    ids.put("remote", String.valueOf(request.remoteAddress()));
    ids.put("streamId", request.streamId());
    ids.put("method", request.path());
    return ids;
  }
}
