package dev.sluice.broker.cli;

import dev.sluice.broker.security.ChangefeedCredentials;
import dev.sluice.dispatcher.ClientSecurity;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The security options every client command shares: the token file, TLS and its CA, and a client
 * certificate for brokers that require mutual TLS. The token is read from a file, never given on the
 * command line (where {@code ps} would show it).
 *
 * <pre>{@code
 * sluice changefeed list --server https://broker-1:8301 --tls-ca ca.pem --token-file ~/.sluice/token
 * sluice tail --table app.orders --broker broker-1:8300 --tls-ca ca.pem --token-file ~/.sluice/token
 * }</pre>
 */
public final class ClientSecurityOptions {

  @Option(names = "--token-file", paramLabel = "FILE",
      description = "File holding the bearer token (its first line), sent as \"authorization: Bearer <token>\".")
  Path tokenFile;

  @Option(names = "--tls", description = "Speak TLS (implied by --tls-ca, --tls-cert and an https:// --server).")
  boolean tls;

  @Option(names = "--tls-ca", paramLabel = "FILE",
      description = "PEM CA certificates the broker's certificate must chain to (default with TLS: the JVM's trust"
          + " store).")
  Path tlsCa;

  @Option(names = "--tls-cert", paramLabel = "FILE",
      description = "PEM client certificate chain, for a broker that requires client certificates (mutual TLS).")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "PEM private key of --tls-cert (unencrypted).")
  Path tlsKey;

  /**
   * The client security these options ask for.
   *
   * @param tlsImplied TLS is on whatever the flags say (an https:// URL)
   * @throws IllegalArgumentException for an unreadable token file or half a client certificate
   */
  public ClientSecurity security(boolean tlsImplied) {
    boolean on = tls || tlsImplied || tlsCa != null || tlsCert != null || tlsKey != null;
    ClientSecurity s = on ? ClientSecurity.tls(tlsCa) : ClientSecurity.none();
    if (tlsCert != null || tlsKey != null) {
      if (tlsCert == null || tlsKey == null) {
        throw new IllegalArgumentException("--tls-cert and --tls-key go together");
      }
      s = s.withClientCertificate(tlsCert, tlsKey);
    }
    if (tokenFile != null) {
      s = s.withToken(ChangefeedCredentials.readToken(tokenFile));
    }
    return s;
  }
}
