package dev.sluice.broker.cli;

import dev.sluice.dispatcher.ClientSecurity;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * A JDK {@link SSLContext} from a {@link ClientSecurity}'s PEM files (CA and client certificate), for
 * the CLI's admin client: the CA through the JDK's certificate parser, the client key through Vert.x's
 * PEM key reader fed the file's bytes.
 */
final class PemSsl {

  private PemSsl() {}

  static SSLContext context(ClientSecurity s) {
    try {
      TrustManager[] trust = null;
      if (s.caFile() != null) {
        java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        int i = 0;
        for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509")
            .generateCertificates(new java.io.ByteArrayInputStream(read(s.caFile()).getBytes()))) {
          ks.setCertificateEntry("ca-" + i++, c);
        }
        if (i == 0) {
          throw new IllegalArgumentException("the CA file " + s.caFile() + " holds no PEM certificate");
        }
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
            javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        trust = tmf.getTrustManagers();
      }
      KeyManager[] keys = null;
      if (s.certFile() != null) {
        keys = new PemKeyCertOptions().setCertValue(read(s.certFile())).setKeyValue(read(s.keyFile()))
            .getKeyManagerFactory(null).getKeyManagers();
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(keys, trust, null);
      return ctx;
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalArgumentException("cannot use the TLS files (" + s.caFile() + ", " + s.certFile() + "): "
          + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()), e);
    }
  }

  private static Buffer read(Path file) {
    try {
      return Buffer.buffer(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getClass().getSimpleName(), e);
    }
  }
}
