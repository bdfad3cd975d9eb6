package dev.sluice.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The security file's documented shape, read strictly. */
class SecurityConfigTest {

  private static final String HASH = TokenHash.of("a-token-of-sixteen".toCharArray(), TokenHash.MIN_ITERATIONS)
      .toString();

  private static JsonObject principal(String name, String role) {
    return new JsonObject().put("name", name).put("roles", new JsonArray().add(role)).put("token_hash", HASH);
  }

  @Test
  void theDocumentedShapeIsRead() {
    SecurityConfig c = SecurityConfig.fromJson(new JsonObject()
        .put("tls", new JsonObject().put("cert", "/etc/sluice/tls/broker.pem").put("key", "/etc/sluice/tls/broker.key")
            .put("client_ca", "/etc/sluice/tls/clients-ca.pem").put("reload_interval", "PT5S"))
        .put("principals", new JsonArray().add(principal("ops", "operator").put("roles", new JsonArray().add("operator")
                .add("metrics")))
            .add(principal("orders-app", "reader").put("tables", new JsonArray().add("app.*").add("!app.secret_*")))
            .add(new JsonObject().put("name", "orders-svc").put("roles", new JsonArray().add("reader"))
                .put("certificate_subject", "CN=orders-svc, O=Example")))
        .put("changefeeds", new JsonObject().put("token_file", "/etc/sluice/changefeed.token")));
    assertThat(c.tls()).isEqualTo(new TlsConfig(Path.of("/etc/sluice/tls/broker.pem"),
        Path.of("/etc/sluice/tls/broker.key"), Path.of("/etc/sluice/tls/clients-ca.pem"), Duration.ofSeconds(5)));
    assertThat(c.authenticationEnabled()).isTrue();
    assertThat(c.principals()).extracting(PrincipalConfig::name).containsExactly("ops", "orders-app", "orders-svc");
    assertThat(c.principals().get(0).roles()).isEqualTo(Set.of(Role.OPERATOR, Role.METRICS));
    Principal app = c.principals().get(1).principal();
    assertThat(app.mayRead("app.orders")).isTrue();
    assertThat(app.mayRead("app.secret_keys")).isFalse();
    assertThat(app.mayRead("billing.invoices")).isFalse();
    assertThat(c.principals().get(2).certificateSubject()).isEqualTo("cn=orders-svc,o=example");
    assertThat(c.changefeedTokenFile()).isEqualTo(Path.of("/etc/sluice/changefeed.token"));
    assertThat(c.toString()).doesNotContain(HASH);
  }

  @Test
  void mistakesAreNamed() {
    assertThatThrownBy(() -> SecurityConfig.fromJson(new JsonObject().put("principal", new JsonArray())))
        .hasMessageContaining("principal");
    assertThatThrownBy(() -> SecurityConfig.fromJson(new JsonObject().put("principals", new JsonArray()
        .add(principal("ops", "superuser"))))).hasMessageContaining("unknown role \"superuser\"");
    assertThatThrownBy(() -> SecurityConfig.fromJson(new JsonObject().put("principals", new JsonArray()
        .add(new JsonObject().put("name", "ops").put("roles", new JsonArray().add("admin"))))))
        .hasMessageContaining("ops has no credential");
    assertThatThrownBy(() -> SecurityConfig.fromJson(new JsonObject().put("principals", new JsonArray()
        .add(principal("a", "reader").put("tables", new JsonArray().add("orders")))))).hasMessageContaining("tables");
    assertThatThrownBy(() -> SecurityConfig.fromJson(new JsonObject().put("principals", new JsonArray()
        .add(principal("a", "reader")).add(principal("a", "admin"))))).hasMessageContaining("twice");
    assertThatThrownBy(() -> SecurityConfig.fromJson(new JsonObject().put("tls", new JsonObject().put("cert", "x"))))
        .hasMessageContaining("key");
    String token = "plain-token-pasted-here";
    assertThatThrownBy(() -> SecurityConfig.fromJson(new JsonObject().put("principals", new JsonArray()
        .add(principal("a", "reader").put("token_hash", token))))).hasMessageNotContaining(token)
        .hasMessageContaining("principal a: token_hash");
  }
}
