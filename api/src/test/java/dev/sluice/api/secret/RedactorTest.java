package dev.sluice.api.secret;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.sql.SQLException;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every credential form the redactor knows, and what it must leave alone. */
class RedactorTest {

  static Stream<Arguments> forms() {
    return Stream.of(
        Arguments.of("a JDBC query parameter", "JDBC target jdbc:postgresql://db:5432/warehouse?user=app&password=s3cr3t"
            + " refused public.t", "JDBC target jdbc:postgresql://db:5432/warehouse?user=app&password=*** refused public.t"),
        Arguments.of("a password followed by another parameter", "jdbc:mariadb://db/app?password=s3cr3t&user=app",
            "jdbc:mariadb://db/app?password=***&user=app"),
        Arguments.of("PostgreSQL's sslpassword", "jdbc:postgresql://db/x?sslpassword=k3y&ssl=true",
            "jdbc:postgresql://db/x?sslpassword=***&ssl=true"),
        Arguments.of("MariaDB trust store password", "jdbc:mariadb://db/x?trustStorePassword=ts1&keyStorePassword=ks2",
            "jdbc:mariadb://db/x?trustStorePassword=***&keyStorePassword=***"),
        Arguments.of("MySQL multi-factor passwords", "jdbc:mysql://db/x?password1=a1b&password2=c2d",
            "jdbc:mysql://db/x?password1=***&password2=***"),
        Arguments.of("case does not matter", "jdbc:mysql://db/x?PASSWORD=s3cr3t", "jdbc:mysql://db/x?PASSWORD=***"),
        Arguments.of("a user:password authority", "jdbc:mysql://app:s3cr3t@db:3306/app",
            "jdbc:mysql://app:***@db:3306/app"),
        Arguments.of("an http authority", "cannot connect to http://admin:pw9@127.0.0.1:8301",
            "cannot connect to http://admin:***@127.0.0.1:8301"),
        Arguments.of("PostgreSQL conninfo", "host=db port=5432 user=app password=s3cr3t dbname=x",
            "host=db port=5432 user=app password=*** dbname=x"),
        Arguments.of("java.util.Properties text", "{user=app, password=s3cr3t}", "{user=app, password=***"),
        Arguments.of("a Kafka JAAS config", "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
            + " required username=\"u\" password=\"s3 cr3t\";", "sasl.jaas.config=org.apache.kafka.common.security."
            + "plain.PlainLoginModule required username=\"u\" password=\"***\";"),
        Arguments.of("a Kafka key password", "ssl.key.password=k3y ssl.keystore.location=/k",
            "ssl.key.password=*** ssl.keystore.location=/k"),
        Arguments.of("a JSON field", "{\"user\":\"app\",\"password\" : \"s3\\\"cr3t\"}",
            "{\"user\":\"app\",\"password\" : \"***\"}"),
        Arguments.of("a JSON-escaped quoted value", "{\"cfg\":\"password=\\\"s3cr3t\\\" x\"}",
            "{\"cfg\":\"password=\\\"***\\\" x\"}"),
        Arguments.of("a bearer token", "authorization: Bearer abc.def-ghi", "authorization: Bearer ***"),
        Arguments.of("a bearer token in a header dump", "{Authorization=Bearer s3cr3t}", "{Authorization=Bearer ***}"),
        Arguments.of("a bare bearer token", "sent Bearer eyJhbGciOi.J9x_Yz and failed", "sent Bearer *** and failed"),
        Arguments.of("an unencoded ; stays in the masked value", "jdbc:postgresql://db/x?password=se;cret end",
            "jdbc:postgresql://db/x?password=*** end"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forms")
  void masksTheSecretAndKeepsTheRest(String form, String text, String expected) {
    assertThat(Redactor.redact(text)).isEqualTo(expected);
    assertThat(Redactor.redact(expected)).as("idempotent").isEqualTo(expected);
    assertThat(Redactor.showsSecret(text)).isTrue();
    assertThat(Redactor.showsSecret(expected)).isFalse();
  }

  @ParameterizedTest
  @MethodSource("harmless")
  void leavesTextWithoutSecretsAlone(String text) {
    assertThat(Redactor.redact(text)).isEqualTo(text);
  }

  static Stream<String> harmless() {
    return Stream.of("jdbc:postgresql://db:5432/warehouse?user=app", "jsonl:file:/var/lib/sluice/sinks/a.jsonl",
        "FATAL: password authentication failed for user \"app\"", "Access denied for user 'app'@'h' (using password: YES)",
        "http://127.0.0.1:8301/api/v1/changefeeds", "no route GET /x@y; GET / lists the API", "", "password",
        "scanConcurrency must be in [1, 1024], got 0", "refused: the bearer token matches no principal",
        "a Bearer credential is required");
  }

  @Test
  void nullStaysNull() {
    assertThat(Redactor.redact(null)).isNull();
    assertThat(Redactor.scrub(null)).isNull();
  }

  @Property
  void aPasswordInAnyKnownFormIsMaskedWhole(@ForAll("passwords") String password, @ForAll("templates") String template) {
    String text = template.replace("PW", password);
    assertThat(Redactor.redact(text)).isEqualTo(template.replace("PW", "***"));
  }

  @Provide
  Arbitrary<String> passwords() {
    // what a URL carries unencoded in a query value or user info (no & / @ or white space)
    return Arbitraries.strings().withChars("abcXYZ0189-._~!$()*+,;:%").ofMinLength(1).ofMaxLength(40)
        .filter(s -> !s.contains("***"));
  }

  @Provide
  Arbitrary<String> templates() {
    return Arbitraries.of("jdbc:postgresql://h:5432/db?user=u&password=PW", "jdbc:postgresql://h/db?password=PW&user=u",
        "jdbc:mariadb://h/db?user=u&password=PW refused x", "jdbc:mysql://u:PW@h:3306/db", "msg password=PW\nnext line");
  }

  @Property
  void redactedTextIsStillTheSameJson(@ForAll("passwords") String password) {
    String text = new JsonObject().put("message", "target jdbc:mysql://u:" + password + "@h/db?password=" + password
        + " failed").put("jaas", "password=\"" + password + "\";").encode();
    JsonObject tree = new JsonObject(Redactor.redact(text));   // still parses
    assertThat(tree.getString("message")).isEqualTo("target jdbc:mysql://u:***@h/db?password=*** failed");
    assertThat(tree.getString("jaas")).isEqualTo("password=\"***\";");
  }

  @Test
  void theSecretsOfAUrlAreFoundAsWrittenAndDecodedAndMaskedWhereverTheyShow() {
    String url = "jdbc:mysql://app:p%40ss-Word1@db:3306/x?password=second-2&sslpassword=third-33";
    assertThat(Redactor.secretsIn(url)).containsExactlyInAnyOrder("second-2", "third-33", "p%40ss-Word1",
        "p@ss-Word1");
    String driver = "Incorrect port value : p@ss-Word1@db, tried second-2";
    assertThat(Redactor.redact(driver, Redactor.secretsIn(url))).isEqualTo("Incorrect port value : ***@db, tried ***");
    assertThat(Redactor.redact("a b c", java.util.Set.of("b"))).as("too short to search").isEqualTo("a b c");
    Throwable scrubbed = Redactor.scrub(new IllegalStateException(driver), Redactor.secretsIn(url));
    assertThat(scrubbed.getMessage()).doesNotContain("p@ss").doesNotContain("second-2");
  }

  @Test
  void scrubKeepsACleanChainAsIs() {
    SQLException clean = new SQLException("Connection to 127.0.0.1:1 refused", "08001");
    RuntimeException outer = new RuntimeException("sink down", clean);
    assertThat(Redactor.scrub(outer)).isSameAs(outer);
  }

  @Test
  void scrubCopiesAChainThatShowsASecretWithTheSameStackTraces() {
    SQLException driver = new SQLException("No suitable driver found for jdbc:mysql://db/app?password=s3cr3t", "08001");
    IllegalStateException outer = new IllegalStateException("open failed", driver);
    outer.addSuppressed(new RuntimeException("also user=u password=other1"));
    Throwable scrubbed = Redactor.scrub(outer);
    assertThat(scrubbed).isInstanceOf(RedactedException.class)
        .hasMessage("java.lang.IllegalStateException: open failed");
    assertThat(scrubbed.getStackTrace()).isEqualTo(outer.getStackTrace());
    assertThat(scrubbed.getCause()).hasMessage("java.sql.SQLException: No suitable driver found for"
        + " jdbc:mysql://db/app?password=***");
    assertThat(((RedactedException) scrubbed.getCause()).originalClassName()).isEqualTo("java.sql.SQLException");
    assertThat(scrubbed.getSuppressed()[0].getMessage()).isEqualTo("java.lang.RuntimeException: also user=u password=***");
  }

  @Test
  void scrubSurvivesACycle() {
    RuntimeException a = new RuntimeException("a password=x1");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    Throwable s = Redactor.scrub(a);
    assertThat(s.getMessage()).endsWith("password=***");
    assertThat(s.getCause().getCause()).isSameAs(s);
  }
}
