package dev.sluice.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Secure by default: which binds start, and what a refused one is told to add. */
class BindPolicyTest {

  private static final PrincipalConfig OPS = new PrincipalConfig("ops", Set.of(Role.ADMIN), null,
      TokenHash.of("ops-token-ops-token".toCharArray(), TokenHash.MIN_ITERATIONS), null, null);
  private static final TlsConfig TLS = TlsConfig.of(Path.of("broker.pem"), Path.of("broker.key"));

  @ParameterizedTest(name = "bind {0}, tls {1}, auth {2}, insecure {3}: {4}")
  @CsvSource({
      "127.0.0.1, false, false, false, starts",
      "localhost, false, false, false, starts",
      "::1,       false, false, false, starts",
      "[::1],     false, false, false, starts",
      "127.0.0.2, false, false, false, starts",
      "0.0.0.0,   false, false, false, refused: TLS (--tls-cert and --tls-key) and authentication",
      "0.0.0.0,   true,  false, false, refused: authentication",
      "0.0.0.0,   false, true,  false, refused: TLS",
      "0.0.0.0,   true,  true,  false, starts",
      "0.0.0.0,   false, false, true,  starts",
      "::,        false, true,  false, refused: TLS",
      "10.1.2.3,  true,  false, false, refused: authentication",
      "10.1.2.3,  true,  true,  false, starts"})
  void aNonLoopbackBindNeedsTlsAndAuthenticationOrInsecure(String host, boolean tls, boolean auth, boolean insecure,
      String expected) {
    SecurityConfig s = SecurityConfig.none().withTls(tls ? TLS : null).withPrincipals(auth ? List.of(OPS) : List.of())
        .withInsecure(insecure);
    if (expected.equals("starts")) {
      assertThatCode(() -> BindPolicy.check(host, s)).doesNotThrowAnyException();
    } else {
      assertThatThrownBy(() -> BindPolicy.check(host, s)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("refusing to listen on " + host)
          .hasMessageContaining(expected.substring("refused: ".length()))
          .hasMessageContaining("--insecure").hasMessageContaining("docs/SECURITY.md");
    }
  }

  @ParameterizedTest(name = "cluster bind {0}, declared private {1}: {2}")
  @CsvSource({
      "127.0.0.1, false, starts",
      "10.0.0.5,  false, refused",
      "10.0.0.5,  true,  starts",
      "0.0.0.0,   false, refused"})
  void aClusterBindBeyondLoopbackMustBeDeclaredPrivate(String host, boolean declared, String expected) {
    if (expected.equals("starts")) {
      assertThatCode(() -> BindPolicy.checkCluster(host, declared)).doesNotThrowAnyException();
    } else {
      assertThatThrownBy(() -> BindPolicy.checkCluster(host, declared))
          .hasMessageContaining("--cluster-network-private").hasMessageContaining(host);
    }
  }

  @ParameterizedTest
  @CsvSource({"127.0.0.1, true", "localhost, true", "::1, true", "0.0.0.0, false", "192.168.1.1, false",
      "no-such-host.invalid, false"})
  void loopbackIsRecognisedWithoutTrustingNames(String host, boolean loopback) {
    assertThat(BindPolicy.isLoopback(host)).isEqualTo(loopback);
  }
}
