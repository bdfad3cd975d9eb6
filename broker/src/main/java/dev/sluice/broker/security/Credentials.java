package dev.sluice.broker.security;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What a request brought to prove who it is: its {@code authorization} header (gRPC metadata or HTTP),
 * the client certificate chain TLS verified (mTLS only), and the peer address for the audit log.
 *
 * @param authorization the raw header value, or null; holds the token: never logged
 * @param peerChain     the verified client chain, leaf first; empty without mTLS
 * @param remote        the peer's address, for the audit log
 */
public record Credentials(String authorization, List<X509Certificate> peerChain, String remote) {

  public Credentials {
    peerChain = peerChain == null ? List.of() : List.copyOf(peerChain);
  }

  /** Keeps only X.509 certificates of {@code chain} (what TLS hands over). */
  public static List<X509Certificate> x509(List<Certificate> chain) {
    return chain == null ? List.of() : chain.stream().filter(c -> c instanceof X509Certificate)
        .map(c -> (X509Certificate) c).toList();
  }

  @Override
  public String toString() {
    return "Credentials[authorization=" + (authorization == null ? "none" : "<redacted>") + ", peer="
        + (peerChain.isEmpty() ? "none" : peerChain.get(0).getSubjectX500Principal().getName()) + ", remote=" + remote
        + "]";
  }
}
