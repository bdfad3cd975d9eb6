package dev.sluice.broker.security;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * TLS of the gRPC and admin ports: the node's certificate chain and private key (PEM files), and the CA
 * that client certificates must chain to when mutual TLS is wanted. The files are checked every
 * {@code reloadInterval} and reloaded when they change ({@link CertificateReloader}).
 *
 * <pre>{@code
 * TlsConfig tls = TlsConfig.of(Path.of("/etc/sluice/tls/broker.pem"), Path.of("/etc/sluice/tls/broker.key"))
 *     .withClientCa(Path.of("/etc/sluice/tls/clients-ca.pem"));     // mTLS: client certificates required
 * }</pre>
 *
 * @param certFile       PEM certificate chain, leaf first
 * @param keyFile        PEM private key of the leaf (PKCS#8 or PKCS#1/SEC1, unencrypted; keep it mode 0600)
 * @param clientCaFile   PEM CA certificates client certificates must chain to; null = no client certificates
 * @param reloadInterval how often the files are checked for changes (default 10 s)
 */
public record TlsConfig(Path certFile, Path keyFile, Path clientCaFile, Duration reloadInterval) {

  public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(10);

  public TlsConfig {
    Objects.requireNonNull(certFile, "certFile");
    Objects.requireNonNull(keyFile, "keyFile");
    Objects.requireNonNull(reloadInterval, "reloadInterval");
    if (reloadInterval.compareTo(Duration.ofMillis(50)) < 0) {
      throw new IllegalArgumentException("tls reload interval must be >= 50 ms, got " + reloadInterval);
    }
  }

  public static TlsConfig of(Path certFile, Path keyFile) {
    return new TlsConfig(certFile, keyFile, null, DEFAULT_RELOAD_INTERVAL);
  }

  public TlsConfig withClientCa(Path file) {
    return new TlsConfig(certFile, keyFile, file, reloadInterval);
  }

  public TlsConfig withReloadInterval(Duration interval) {
    return new TlsConfig(certFile, keyFile, clientCaFile, interval);
  }

  /** Client certificates are required (and verified against {@link #clientCaFile}). */
  public boolean mutual() {
    return clientCaFile != null;
  }
}
