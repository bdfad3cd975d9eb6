package dev.sluice.broker.security;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * The TLS files of a node as read once, checked: a certificate chain that parses, is valid now and
 * matches the private key, and a client CA that parses. A node serves only material that passed
 * these checks, so a half-written or wrong file on disk never replaces a working certificate.
 *
 * <pre>{@code
 * TlsMaterial m = TlsMaterial.load(tlsConfig, vertx, Instant.now());   // throws naming the file and the fault
 * server.updateSSLOptions(m.serverOptions(), true);
 * }</pre>
 *
 * @param cert        the chain's PEM bytes
 * @param key         the key's PEM bytes (never logged, never rendered)
 * @param clientCa    the client CA's PEM bytes, or null without mTLS
 * @param leaf        the parsed leaf certificate
 * @param fingerprint SHA-256 over the three files' bytes: what a reload compares
 */
public record TlsMaterial(Buffer cert, Buffer key, Buffer clientCa, X509Certificate leaf, String fingerprint) {

  /**
   * Reads and checks the files of {@code tls}.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it (never its content)
   */
  public static TlsMaterial load(TlsConfig tls, Vertx vertx, Instant now) {
    byte[] certBytes = read(tls.certFile(), "certificate chain");
    byte[] keyBytes = read(tls.keyFile(), "private key");
    byte[] caBytes = tls.clientCaFile() == null ? null : read(tls.clientCaFile(), "client CA");
    List<X509Certificate> chain = certificates(certBytes, tls.certFile(), "certificate chain");
    X509Certificate leaf = chain.get(0);
    if (now.isAfter(leaf.getNotAfter().toInstant())) {
      throw new IllegalArgumentException("the certificate in " + tls.certFile() + " (" + subject(leaf)
          + ") expired at " + leaf.getNotAfter().toInstant() + "; renew it");
    }
    if (now.isBefore(leaf.getNotBefore().toInstant())) {
      throw new IllegalArgumentException("the certificate in " + tls.certFile() + " (" + subject(leaf)
          + ") is not valid before " + leaf.getNotBefore().toInstant() + "; check the clock or the certificate");
    }
    Buffer cert = Buffer.buffer(certBytes);
    Buffer key = Buffer.buffer(keyBytes);
    PemKeyCertOptions pem = new PemKeyCertOptions().setCertValue(cert).setKeyValue(key);
    PrivateKey privateKey;
    try {
      KeyStore ks = pem.loadKeyStore(vertx);
      String alias = Collections.list(ks.aliases()).get(0);
      // Vert.x builds this key store with its fixed dummy password
      Key k = ks.getKey(alias, io.vertx.core.net.impl.KeyStoreHelper.DUMMY_PASSWORD.toCharArray());
      if (!(k instanceof PrivateKey pk)) {
        throw new IllegalArgumentException("no private key");
      }
      privateKey = pk;
      pem.getKeyManagerFactory(vertx);
    } catch (Exception e) {
      throw new IllegalArgumentException("the private key in " + tls.keyFile() + " cannot be read (an unencrypted PEM"
          + " key is expected: BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY): "
          + e.getClass().getSimpleName(), null);
    }
    if (!matches(privateKey, leaf)) {
      throw new IllegalArgumentException("the private key in " + tls.keyFile() + " does not belong to the certificate"
          + " in " + tls.certFile() + " (" + subject(leaf) + ")");
    }
    Buffer ca = null;
    if (caBytes != null) {
      certificates(caBytes, tls.clientCaFile(), "client CA");
      ca = Buffer.buffer(caBytes);
      try {
        new PemTrustOptions().addCertValue(ca).getTrustManagerFactory(vertx);
      } catch (Exception e) {
        throw new IllegalArgumentException("the client CA in " + tls.clientCaFile() + " cannot be used: "
            + e.getClass().getSimpleName(), null);
      }
    }
    return new TlsMaterial(cert, key, ca, leaf, fingerprint(certBytes, keyBytes, caBytes));
  }

  /** The SHA-256 the reloader compares, of the files as they are now (no parsing). */
  static String fingerprintOf(TlsConfig tls) {
    return fingerprint(read(tls.certFile(), "certificate chain"), read(tls.keyFile(), "private key"),
        tls.clientCaFile() == null ? null : read(tls.clientCaFile(), "client CA"));
  }

  /** Options for a server presenting this certificate, requiring client certificates when a client CA is set. */
  public ServerSSLOptions serverOptions() {
    ServerSSLOptions o = new ServerSSLOptions().setKeyCertOptions(keyCertOptions()).setUseAlpn(true);
    if (clientCa != null) {
      o.setTrustOptions(new PemTrustOptions().addCertValue(clientCa)).setClientAuth(ClientAuth.REQUIRED);
    }
    return o;
  }

  public PemKeyCertOptions keyCertOptions() {
    return new PemKeyCertOptions().setCertValue(cert).setKeyValue(key);
  }

  /** The leaf's subject, for logs. */
  public String subject() {
    return subject(leaf);
  }

  static String subject(X509Certificate c) {
    return c.getSubjectX500Principal().getName();
  }

  @Override
  public String toString() {
    return "TlsMaterial[subject=" + subject() + ", notAfter=" + leaf.getNotAfter().toInstant() + ", fingerprint="
        + fingerprint + "]";
  }

  private static byte[] read(Path file, String what) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the TLS " + what + " " + file + ": " + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : " " + e.getMessage()), null);
    }
  }

  private static List<X509Certificate> certificates(byte[] pem, Path file, String what) {
    try {
      Collection<? extends Certificate> all = CertificateFactory.getInstance("X.509")
          .generateCertificates(new ByteArrayInputStream(pem));
      List<X509Certificate> out = all.stream().map(c -> (X509Certificate) c).toList();
      if (out.isEmpty()) {
        throw new IllegalArgumentException("the TLS " + what + " " + file + " holds no PEM certificate");
      }
      return out;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("the TLS " + what + " " + file + " is not a PEM certificate list: "
          + e.getMessage(), null);
    }
  }

  private static boolean matches(PrivateKey key, X509Certificate cert) {
    String alg = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    if (alg == null) {
      return true;   // a key type we cannot probe: the TLS handshake will tell
    }
    try {
      byte[] probe = "sluice-key-check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(cert.getPublicKey());
      v.update(probe);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static String fingerprint(byte[] cert, byte[] key, byte[] ca) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(cert);
      d.update((byte) 0);
      d.update(key);
      d.update((byte) 0);
      if (ca != null) {
        d.update(ca);
      }
      return HexFormat.of().formatHex(d.digest()).substring(0, 16);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
