package dev.sluice.dispatcher.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.BrokerAddress;
import io.vertx.core.http.StreamResetException;
import io.vertx.grpc.common.GrpcStatus;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the transport throws becomes a sentence naming the broker and what to check, table-driven over the
 * failures a client meets (the exception classes Netty and Vert.x raise, built here since a refused connect
 * or a TLS failure cannot be had on demand for each); no Java class name or gRPC status number reaches the
 * text (issue #18). And each broker status maps to the error code a user can branch on.
 */
class TroubleTextTest {

  private static final BrokerAddress BROKER = new BrokerAddress("127.0.0.1", 8300);

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(new RuntimeException(new ConnectException("Connection refused: /127.0.0.1:8300")),
            "cannot connect to broker 127.0.0.1:8300: connection refused; check that a Sluice broker listens"),
        Arguments.of(new ConnectException("connection timed out after 2000 ms: /127.0.0.1:8300"),
            "cannot connect to broker 127.0.0.1:8300: the connection timed out (ClientConfig.connectTimeout)"),
        Arguments.of(new UnknownHostException("brokr-1"), "cannot resolve the broker host \"127.0.0.1\""),
        Arguments.of(new NoRouteToHostException("No route to host"), "no route to broker 127.0.0.1:8300"),
        Arguments.of(new SSLHandshakeException("io.netty.handler.ssl.NotSslRecordException: not an SSL/TLS record"),
            "TLS with broker 127.0.0.1:8300 failed: not an SSL/TLS record; check ClientSecurity"),
        Arguments.of(new TimeoutException("Timeout 2000 (ms) fired"),
            "broker 127.0.0.1:8300 did not answer in time (ClientConfig.connectTimeout)"),
        Arguments.of(new StreamResetException(8), "broker 127.0.0.1:8300 reset the stream (HTTP/2 error 8)"),
        Arguments.of(new ClosedChannelException(), "the connection to broker 127.0.0.1:8300 closed"),
        Arguments.of(new BrokerCalls.CallFailedException(GrpcStatus.NOT_FOUND, "no table public.nope"),
            "broker 127.0.0.1:8300 answered NOT_FOUND: no table public.nope"),
        Arguments.of(new BrokerCalls.CallFailedException(GrpcStatus.UNAVAILABLE, ""),
            "broker 127.0.0.1:8300 answered UNAVAILABLE"),
        Arguments.of(new IllegalStateException("io.netty.handler.codec.http2.Http2Exception: stream closed"),
            "the connection to broker 127.0.0.1:8300 failed: stream closed"),
        Arguments.of(new IllegalStateException(), "the connection to broker 127.0.0.1:8300 failed: no detail given"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("failures")
  void aTransportFailureIsASentenceNamingTheBroker(Throwable failure, String expected) {
    String text = TroubleText.describe(failure, BROKER);
    assertThat(text).startsWith(expected).doesNotContain("io.netty").doesNotContain("java.")
        .doesNotContain("Exception").doesNotContainPattern("answered \\d");
  }

  @Test
  void aStatusIsNamedNeverNumbered() {
    assertThat(GrpcStatus.NOT_FOUND.toString()).as("why statusName exists").isEqualTo("5");
    assertThat(TroubleText.statusName(GrpcStatus.NOT_FOUND)).isEqualTo("NOT_FOUND");
    assertThat(new BrokerCalls.CallFailedException(GrpcStatus.PERMISSION_DENIED, "token lacks READ").getMessage())
        .isEqualTo("PERMISSION_DENIED: token lacks READ");
  }

  static Stream<Arguments> statuses() {
    return Stream.of(
        Arguments.of(null, ErrorCode.BROKER_UNREACHABLE),
        Arguments.of(GrpcStatus.UNAUTHENTICATED, ErrorCode.UNAUTHENTICATED),
        Arguments.of(GrpcStatus.PERMISSION_DENIED, ErrorCode.PERMISSION_DENIED),
        Arguments.of(GrpcStatus.NOT_FOUND, ErrorCode.UNKNOWN_TABLE),
        Arguments.of(GrpcStatus.FAILED_PRECONDITION, ErrorCode.TABLE_DROPPED),
        Arguments.of(GrpcStatus.OUT_OF_RANGE, ErrorCode.START_TS_BELOW_GC),
        Arguments.of(GrpcStatus.INVALID_ARGUMENT, ErrorCode.INVALID_REQUEST),
        Arguments.of(GrpcStatus.UNIMPLEMENTED, ErrorCode.UNSUPPORTED_FEATURE),
        Arguments.of(GrpcStatus.UNAVAILABLE, ErrorCode.SCHEMA_UNAVAILABLE),
        Arguments.of(GrpcStatus.DEADLINE_EXCEEDED, ErrorCode.BROKER_UNREACHABLE),
        Arguments.of(GrpcStatus.INTERNAL, ErrorCode.INTERNAL));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("statuses")
  void aCallsStatusBecomesTheErrorCodeOfItsMeaning(GrpcStatus status, ErrorCode code) {
    Throwable failure = status == null ? new ConnectException("Connection refused")
        : new BrokerCalls.CallFailedException(status, "the broker's reason");
    SluiceException e = CallErrors.of("ListTables", failure, BROKER);
    assertThat(e.code()).isEqualTo(code);
    assertThat(e.getMessage()).startsWith("ListTables failed: ").contains("127.0.0.1:8300")
        .doesNotContain("Exception");
    assertThat(e.getCause()).as("what the transport threw, for a stack trace").isSameAs(failure);
  }

  @Test
  void aFailedHandshakeSaysWhyFromTheDeepestCause() {
    var expired = new javax.net.ssl.SSLHandshakeException("Failed to create SSL connection");
    expired.initCause(new java.security.cert.CertificateExpiredException("NotAfter: Mon Jan 01 00:00:00 UTC 2024"));
    assertThat(TroubleText.describe(expired, BROKER)).isEqualTo("TLS with broker 127.0.0.1:8300 failed: the broker's"
        + " certificate has expired (NotAfter: Mon Jan 01 00:00:00 UTC 2024); check ClientSecurity (CA file, host name)"
        + " and whether the broker serves TLS");
    var untrusted = new javax.net.ssl.SSLHandshakeException("Failed to create SSL connection");
    untrusted.initCause(new javax.net.ssl.SSLHandshakeException("PKIX path building failed: sun.security.provider"
        + ".certpath.SunCertPathBuilderException: unable to find valid certification path to requested target"));
    assertThat(TroubleText.describe(untrusted, BROKER)).contains("not signed by a CA the client trusts");
    var other = new javax.net.ssl.SSLHandshakeException("Failed to create SSL connection");
    other.initCause(new javax.net.ssl.SSLException("io.netty.handler.ssl.NotSslRecordException: not an SSL/TLS record"));
    assertThat(TroubleText.describe(other, BROKER)).contains("failed: not an SSL/TLS record;").doesNotContain("io.netty");
  }
}
