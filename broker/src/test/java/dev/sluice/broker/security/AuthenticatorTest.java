package dev.sluice.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.broker.testing.TestPki;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Who credentials stand for: tokens against the stored hashes, certificates by subject or SAN, in order. */
class AuthenticatorTest {

  private static final int FAST = TokenHash.MIN_ITERATIONS;
  private static final TestPki.Ca CA = TestPki.ca("Auth CA");
  private static final X509Certificate SVC = CA.client("svc", Duration.ofDays(1)).cert();
  private static final X509Certificate BATCH = CA.client("batch", Duration.ofDays(1)).cert();

  private final Authenticator auth = Authenticator.of(List.of(
      new PrincipalConfig("ops", Set.of(Role.OPERATOR), null, TokenHash.of("ops-token-0123456789".toCharArray(), FAST),
          null, null),
      new PrincipalConfig("app", Set.of(Role.READER), List.of("app.*"),
          TokenHash.of("app-token-0123456789".toCharArray(), FAST), null, null),
      new PrincipalConfig("svc", Set.of(Role.READER), null, null, "CN=svc, O=Sluice Tests", null),
      new PrincipalConfig("batch", Set.of(Role.READER), null, null, null, "batch.clients.test")));

  @AfterEach
  void close() {
    auth.close();
  }

  private String who(String header, X509Certificate cert) {
    try {
      return auth.authenticate(new Credentials(header, cert == null ? List.of() : List.of(cert), "test"))
          .toCompletableFuture().get(10, TimeUnit.SECONDS).name();
    } catch (Exception e) {
      Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
      assertThat(cause).isInstanceOf(AccessDeniedException.class);
      assertThat(((AccessDeniedException) cause).code()).isEqualTo(ErrorCode.UNAUTHENTICATED);
      return "refused: " + cause.getMessage();
    }
  }

  @ParameterizedTest(name = "{0} / cert {1} -> {2}")
  @CsvSource(delimiter = '|', value = {
      "Bearer ops-token-0123456789    |       | ops",
      "bearer   app-token-0123456789  |       | app",
      "BEARER app-token-0123456789    | svc   | app",
      "Bearer wrong-token-0123456789  | svc   | refused: the bearer token matches no principal",
      "Basic b3BzOnB3                 |       | refused: the authorization header must be \"Bearer <token>\"",
      "Bearer                         |       | refused: the authorization header must be",
      "                               | svc   | svc",
      "                               | batch | batch",
      "                               |       | refused: no credential"})
  void credentialsStandForTheirPrincipalOrAreRefusedSayingWhatToSend(String header, String cert, String expected) {
    X509Certificate c = cert == null ? null : cert.equals("svc") ? SVC : BATCH;
    assertThat(who(header, c)).startsWith(expected);
  }

  @Test
  void anUnmappedCertificateIsNamedInTheRefusal() {
    X509Certificate stranger = CA.client("stranger", Duration.ofDays(1)).cert();
    assertThat(who(null, stranger)).contains("CN=stranger").contains("certificate_subject");
  }

  @Test
  void theInternalTokenStandsForItsPrincipalAndATokenIsNeverInAMessage() {
    auth.addInternal("internal-token-abcdefgh".toCharArray(),
        new Principal(ChangefeedCredentials.INTERNAL_NAME, Set.of(Role.READER), null));
    assertThat(who("Bearer internal-token-abcdefgh", null)).isEqualTo("sluice-changefeeds");
    assertThat(who("Bearer internal-token-abcdefgX", null)).startsWith("refused").doesNotContain("abcdef");
  }

  @Test
  void withoutPrincipalsEveryoneIsAnonymousAdmin() {
    try (Authenticator open = Authenticator.of(List.of())) {
      Principal p = open.authenticate(new Credentials(null, List.of(), "")).toCompletableFuture().join();
      assertThat(p).isEqualTo(Principal.ANONYMOUS);
      assertThat(p.may(Permission.CONFIG_WRITE)).isTrue();
    }
    Throwable t = catchThrowable(() -> AccessGuard.check(new Principal("m", Set.of(Role.METRICS), null),
        Permission.STATUS, "GET /api/v1/members"));
    assertThat(t).isInstanceOf(AccessDeniedException.class).hasMessageContaining("admin, operator");
  }
}
