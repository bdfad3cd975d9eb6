package dev.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README is what runs: its first block is the dependency snippet of {@code examples/java/pom.xml}, and its
 * example is {@code examples/java/.../OrdersToConsole.java} verbatim, the program ExamplesIT (it/) builds from
 * the installed artifacts and runs against a real broker. A README edit that is not made to the example (or the
 * other way round) fails here.
 */
class ReadmeExampleTest {

  private static final Path README = Path.of("README.md");
  private static final Path EXAMPLE = Path.of("../examples/java/src/main/java/example/OrdersToConsole.java");
  private static final Path POM = Path.of("../examples/java/pom.xml");

  @Test
  void theReadmesExampleIsTheExampleProjectsProgram() throws IOException {
    String readme = Files.readString(README);
    String marker = "<!-- example: examples/java/src/main/java/example/OrdersToConsole.java -->\n```java\n";
    int start = readme.indexOf(marker);
    assertThat(start).as("the README marks its example").isGreaterThan(0);
    int end = readme.indexOf("```\n<!-- example end -->", start);
    assertThat(readme.substring(start + marker.length(), end)).isEqualTo(Files.readString(EXAMPLE));
  }

  @Test
  void theReadmeStartsWithTheExampleProjectsDependencySnippet() throws IOException {
    String readme = Files.readString(README);
    String firstBlock = readme.substring(readme.indexOf("```xml\n") + 7, readme.indexOf("```", readme.indexOf("```xml\n") + 7));
    assertThat(readme.indexOf("```xml\n")).as("the dependency snippet is the first block").isLessThan(readme.indexOf("\n## "));
    String pom = Files.readString(POM);
    String snippet = pom.substring(pom.indexOf("  <dependencyManagement>"),
        pom.indexOf("  <!-- the dependency snippet of dispatcher/README.md: end -->"));
    assertThat(firstBlock).isEqualTo(snippet.replace("\n  ", "\n").stripLeading());
  }
}
