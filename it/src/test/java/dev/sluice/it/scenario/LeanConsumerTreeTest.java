package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The check ExamplesIT runs on the Java example's resolved dependencies ({@code mvn dependency:list}) fails on
 * each thing issue #18 names: a JDBC driver, a gRPC server, Guava, two protobuf versions. Table-driven on
 * {@code dependency:list} lines, so the check is shown to be able to fail.
 */
class LeanConsumerTreeTest {

  /** What the example resolves today (abridged), in dependency:list's format. */
  private static final List<String> LEAN = List.of(
      "The following files have been resolved:",
      "   dev.sluice:sluice-dispatcher:jar:0.1.0-SNAPSHOT:compile -- module sluice.dispatcher (auto)",
      "   dev.sluice:sluice-api:jar:0.1.0-SNAPSHOT:compile -- module sluice.api (auto)",
      "   com.google.protobuf:protobuf-java:jar:4.36.2:compile -- module com.google.protobuf [auto]",
      "   com.google.protobuf:protobuf-java-util:jar:4.36.2:compile -- module com.google.protobuf.util [auto]",
      "   io.vertx:vertx-grpc-client:jar:5.0.7:compile -- module io.vertx.grpc.client",
      "   io.vertx:vertx-core:jar:5.0.7:compile -- module io.vertx.core",
      "   org.slf4j:slf4j-api:jar:2.0.20:compile -- module org.slf4j");

  static Stream<Arguments> oneUnwantedDependency() {
    return Stream.of(
        Arguments.of("JDBC drivers", "   org.postgresql:postgresql:jar:42.7.8:compile -- module org.postgresql.jdbc"),
        Arguments.of("JDBC drivers", "   org.mariadb.jdbc:mariadb-java-client:jar:3.5.6:compile"),
        Arguments.of("gRPC servers", "   io.vertx:vertx-grpc-server:jar:5.0.7:compile -- module io.vertx.grpc.server"),
        Arguments.of("gRPC servers", "   io.grpc:grpc-netty-shaded:jar:1.76.0:runtime"),
        Arguments.of("Guava", "   com.google.guava:guava:jar:33.4.0-android:compile"),
        Arguments.of("protobuf versions", "   com.google.protobuf:protobuf-java-util:jar:4.29.3:compile"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("oneUnwantedDependency")
  void anUnwantedDependencyFailsTheCheckNamingWhatIsWrong(String what, String line) {
    List<String> tree = new ArrayList<>(LEAN);
    if (line.contains("protobuf-java-util")) {
      tree.removeIf(l -> l.contains("protobuf-java-util"));
    }
    tree.add(line);
    assertThatThrownBy(() -> ExamplesIT.assertLeanConsumerTree(tree)).isInstanceOf(AssertionError.class)
        .hasMessageContaining(what);
  }

  @Test
  void theLeanTreePasses() {
    assertThatCode(() -> ExamplesIT.assertLeanConsumerTree(LEAN)).doesNotThrowAnyException();
  }

  @Test
  void aTreeWithoutTheLibraryFails() {
    assertThatThrownBy(() -> ExamplesIT.assertLeanConsumerTree(List.of("The following files have been resolved:")))
        .isInstanceOf(AssertionError.class).hasMessageContaining("the consumer's resolved dependencies");
  }
}
