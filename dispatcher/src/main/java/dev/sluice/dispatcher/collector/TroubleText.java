package dev.sluice.dispatcher.collector;

import dev.sluice.dispatcher.BrokerAddress;
import io.vertx.core.http.StreamResetException;
import io.vertx.grpc.common.GrpcStatus;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * Turns what the transport threw (Netty's connect exceptions, Vert.x timeouts and resets, gRPC statuses)
 * into a sentence naming the broker and what to check, so no status number or Netty class reaches a
 * user's log, {@code onStateChange} or {@code onError}.
 *
 * <pre>{@code
 * String why = TroubleText.describe(err, address);   // "cannot connect to broker 127.0.0.1:1: connection refused ..."
 * }</pre>
 */
final class TroubleText {

  private TroubleText() {}

  /** A sentence for a failed call or stream to {@code broker}. */
  static String describe(Throwable err, BrokerAddress broker) {
    Throwable e = err;
    for (int depth = 0; e != null && depth < 8; depth++, e = e.getCause()) {
      String text = known(e, broker);
      if (text != null) {
        return text;
      }
    }
    String message = err == null ? null : err.getMessage();
    return "the connection to broker " + broker + " failed: " + (message == null || message.isBlank()
        ? "no detail given" : strip(message));
  }

  /** The gRPC status as its name ("NOT_FOUND"), never its number. */
  static String statusName(GrpcStatus status) {
    return status == null ? "no status" : status.name();
  }

  private static String known(Throwable e, BrokerAddress broker) {
    if (e instanceof BrokerCalls.CallFailedException cfe) {
      return "broker " + broker + " answered " + statusName(cfe.status()) + (cfe.detail().isEmpty() ? ""
          : ": " + cfe.detail());
    }
    if (e instanceof BrokerStream.StreamEndedException) {
      return e.getMessage();
    }
    if (e instanceof UnknownHostException) {
      return "cannot resolve the broker host \"" + broker.host() + "\"; check ClientConfig.brokers";
    }
    if (e instanceof NoRouteToHostException) {
      return "no route to broker " + broker + "; check the host and the network";
    }
    if (e instanceof ConnectException ce) {
      String m = String.valueOf(ce.getMessage()).toLowerCase();
      if (m.contains("timed out")) {
        return "cannot connect to broker " + broker + ": the connection timed out (ClientConfig.connectTimeout);"
            + " check the host, the port and firewalls";
      }
      return "cannot connect to broker " + broker + ": connection refused; check that a Sluice broker listens on"
          + " that host and gRPC port (8300 by default)";
    }
    if (e instanceof SSLException) {
      return "TLS with broker " + broker + " failed: " + tlsReason(e)
          + "; check ClientSecurity (CA file, host name) and whether the broker serves TLS";
    }
    if (e instanceof TimeoutException) {
      String m = e.getMessage();
      return m != null && m.contains(broker.toString()) ? m
          : "broker " + broker + " did not answer in time (ClientConfig.connectTimeout)";
    }
    if (e instanceof StreamResetException sre) {
      return "broker " + broker + " reset the stream (HTTP/2 error " + sre.getCode() + ")";
    }
    if (e instanceof ClosedChannelException
        || (e.getMessage() != null && e.getMessage().toLowerCase().contains("connection was closed"))) {
      return "the connection to broker " + broker + " closed";
    }
    if (e.getClass().getName().endsWith("NoStackTraceTimeoutException")) {
      return "broker " + broker + " did not answer in time (ClientConfig.connectTimeout)";
    }
    return null;
  }

  /**
   * Why a handshake failed, from the deepest cause that says (Netty's outer "Failed to create SSL connection"
   * says nothing): an expired or not yet valid certificate, one no trusted CA signed, or the JDK's own words.
   */
  private static String tlsReason(Throwable ssl) {
    String deepest = null;
    Throwable c = ssl;
    for (int depth = 0; c != null && depth < 8; depth++, c = c.getCause()) {
      if (c instanceof java.security.cert.CertificateExpiredException) {
        return "the broker's certificate has expired (" + strip(String.valueOf(c.getMessage())) + ")";
      }
      if (c instanceof java.security.cert.CertificateNotYetValidException) {
        return "the broker's certificate is not valid yet (" + strip(String.valueOf(c.getMessage())) + ")";
      }
      if (c instanceof java.security.cert.CertPathBuilderException
          || String.valueOf(c.getMessage()).startsWith("PKIX path building failed")) {
        return "the broker's certificate is not signed by a CA the client trusts (PKIX path building failed)";
      }
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        deepest = c.getMessage();
      }
    }
    return deepest == null ? "no detail given" : strip(deepest);
  }

  /** Drops Java/Netty class-name prefixes ("io.netty...Exception: ") that a message may carry. */
  private static String strip(String message) {
    return message.replaceAll("(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error): ?", "").strip();
  }
}
