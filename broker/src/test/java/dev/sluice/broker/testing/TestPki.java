package dev.sluice.broker.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates made at test time (BouncyCastle, test scope only), so that no key is ever committed:
 * a CA, server leaves for 127.0.0.1 / localhost, client leaves, expired and not-yet-valid ones, written
 * as PEM files under a short directory.
 *
 * <pre>{@code
 * TestPki.Ca ca = TestPki.ca("Test CA");
 * TestPki.Issued server = ca.server("broker", Duration.ofDays(1));
 * server.write(dir, "broker");   // broker.pem (chain: leaf, CA) and broker.key
 * }</pre>
 */
public final class TestPki {

  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private TestPki() {}

  /** A certificate and its key. */
  public record Issued(X509Certificate cert, KeyPair keys, X509Certificate issuer) {

    /** Writes {@code name}.pem (leaf then issuer) and {@code name}.key; returns the pair of paths. */
    public PemFiles write(Path dir, String name) {
      Path cert = dir.resolve(name + ".pem");
      Path key = dir.resolve(name + ".key");
      writeAtomically(cert, pem(this.cert) + (issuer == null || issuer.equals(this.cert) ? "" : pem(issuer)));
      writeAtomically(key, pem(keys.getPrivate()));
      return new PemFiles(cert, key);
    }
  }

  /** A written certificate chain and key. */
  public record PemFiles(Path cert, Path key) {}

  /** A CA that signs leaves. */
  public record Ca(X509Certificate cert, KeyPair keys) {

    public Issued server(String cn, Duration validFor) {
      return leaf(cn, Instant.now().minus(Duration.ofMinutes(5)), Instant.now().plus(validFor), true);
    }

    public Issued client(String cn, Duration validFor) {
      return leaf(cn, Instant.now().minus(Duration.ofMinutes(5)), Instant.now().plus(validFor), false);
    }

    /** A leaf whose validity ended an hour ago. */
    public Issued expired(String cn, boolean server) {
      return leaf(cn, Instant.now().minus(Duration.ofDays(2)), Instant.now().minus(Duration.ofHours(1)), server);
    }

    public Issued leaf(String cn, Instant notBefore, Instant notAfter, boolean server) {
      KeyPair kp = keyPair();
      try {
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(cert, BigInteger.valueOf(SERIAL.incrementAndGet()),
            Date.from(notBefore), Date.from(notAfter), new X500Name("O=Sluice Tests,CN=" + cn), kp.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        if (server) {
          b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
        } else {
          b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(
              new GeneralName(GeneralName.dNSName, cn + ".clients.test")));
        }
        return new Issued(sign(b, keys), kp, cert);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    public Path write(Path dir, String name) {
      Path p = dir.resolve(name + ".pem");
      writeAtomically(p, pem(cert));
      return p;
    }
  }

  /** A self-signed CA valid for a day. */
  public static Ca ca(String cn) {
    KeyPair kp = keyPair();
    try {
      X500Name name = new X500Name("O=Sluice Tests,CN=" + cn);
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(SERIAL.incrementAndGet()),
          Date.from(Instant.now().minus(Duration.ofHours(1))), Date.from(Instant.now().plus(Duration.ofDays(1))), name,
          kp.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return new Ca(sign(b, kp), kp);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer) {
    try {
      return new JcaX509CertificateConverter().getCertificate(b.build(
          new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    } catch (Exception e) {
      throw new IllegalStateException("cannot sign a test certificate", e);
    }
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** PEM text of a certificate or a private key (PKCS#8). */
  public static String pem(Object o) {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
      pw.writeObject(o instanceof java.security.PrivateKey k
          ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(k, null) : o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.toString();
  }

  /** Writes {@code text} to a sibling temp file and moves it over {@code file}: a reader never sees half of it. */
  public static void writeAtomically(Path file, String text) {
    try {
      Path tmp = Files.createTempFile(file.getParent(), ".w", ".tmp");
      Files.writeString(tmp, text);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
