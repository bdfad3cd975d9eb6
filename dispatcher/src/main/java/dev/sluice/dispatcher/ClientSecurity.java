package dev.sluice.dispatcher;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How a client proves who it is to the brokers and checks who they are: TLS with a CA to trust (a PEM
 * file, or the JVM's default trust store), a client certificate for brokers that require mutual TLS,
 * and a bearer token sent as {@code authorization: Bearer <token>} on every call.
 *
 * <pre>{@code
 * ClientSecurity s = ClientSecurity.tls(Path.of("/etc/sluice/ca.pem"))
 *     .withToken(Files.readString(Path.of("/run/secrets/sluice-token")).strip())
 *     .withClientCertificate(Path.of("client.pem"), Path.of("client.key"));
 * ClientConfig config = ClientConfig.of("broker-1.example.com:8300").withSecurity(s);
 * }</pre>
 *
 * @param tls      speak TLS to the brokers
 * @param caFile   PEM CA certificates the brokers' certificates must chain to; null = the JVM's trust store
 * @param certFile PEM client certificate chain (mutual TLS), or null
 * @param keyFile  its PEM private key (unencrypted), or null
 * @param token    the bearer token, or null; never printed ({@link #toString()} redacts it)
 */
public record ClientSecurity(boolean tls, Path caFile, Path certFile, Path keyFile, String token) {

  /** Checks that certificate and key come together, that a CA or certificate has TLS, and the token's form. */
  public ClientSecurity {
    if ((certFile == null) != (keyFile == null)) {
      throw new IllegalArgumentException("a client certificate needs both its file and its key file, got cert="
          + certFile + " key=" + keyFile);
    }
    if (!tls && (caFile != null || certFile != null)) {
      throw new IllegalArgumentException("a CA file or a client certificate needs TLS; use ClientSecurity.tls(...)");
    }
    if (token != null && (token.isBlank() || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e))) {
      throw new IllegalArgumentException("the token must be printable ASCII without spaces (value not shown)");
    }
  }

  /** Plaintext, no token: a broker on loopback without authentication. */
  public static ClientSecurity none() {
    return new ClientSecurity(false, null, null, null, null);
  }

  /** TLS trusting the CA certificates in {@code caFile} (null: the JVM's default trust store). */
  public static ClientSecurity tls(Path caFile) {
    return new ClientSecurity(true, caFile, null, null, null);
  }

  /** With the bearer token {@code value} sent on every call. */
  public ClientSecurity withToken(String value) {
    return new ClientSecurity(tls, caFile, certFile, keyFile, value);
  }

  /** With a client certificate chain and its unencrypted PEM key, for brokers that require mutual TLS. */
  public ClientSecurity withClientCertificate(Path cert, Path key) {
    return new ClientSecurity(tls, caFile, Objects.requireNonNull(cert, "cert"), Objects.requireNonNull(key, "key"),
        token);
  }

  /** The {@code authorization} header value, or null without a token. */
  public String authorization() {
    return token == null ? null : "Bearer " + token;
  }

  @Override
  public String toString() {
    return "ClientSecurity[tls=" + tls + ", caFile=" + caFile + ", certFile=" + certFile + ", keyFile=" + keyFile
        + ", token=" + (token == null ? "none" : "<redacted>") + "]";
  }
}
