package dev.sluice.testing.containers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tag a test looks for is the tag scripts/install-test-deps.sh builds: both hash a directory alike. */
class ContentHashTest {

  private static final Path REPO = TestImage.imagesRoot().getParent().getParent();

  @Test
  void theScriptAndTheTestsHashEveryImageDirectoryAlike() throws Exception {
    List<Path> dirs;
    try (Stream<Path> list = Files.list(TestImage.imagesRoot())) {
      dirs = list.filter(d -> Files.isRegularFile(d.resolve("Dockerfile"))).sorted().toList();
    }
    assertThat(dirs).extracting(d -> d.getFileName().toString()).contains("postgres", "mariadb", "kafka", "node");
    for (Path dir : dirs) {
      assertThat(ContentHash.of(dir)).as(dir.toString()).isEqualTo(scriptHash(dir)).hasSize(ContentHash.LENGTH);
    }
  }

  @Test
  void theHashFollowsNamesAndContentAndLeavesTheBuildOutputOut(@TempDir Path dir) throws Exception {
    write(dir.resolve("Dockerfile"), "FROM sluice-test/debian:bookworm\n");
    write(dir.resolve("conf/a b.conf"), "x = 1\n");
    write(dir.resolve("conf/B.conf"), "y = 2\n");   // byte order: "B" sorts before "a"
    String first = ContentHash.of(dir);
    assertThat(first).isEqualTo(scriptHash(dir));

    write(dir.resolve("target/libs/some.jar"), "fetched by Maven");
    assertThat(ContentHash.of(dir)).isEqualTo(first).isEqualTo(scriptHash(dir));

    write(dir.resolve("conf/a b.conf"), "x = 2\n");
    String changed = ContentHash.of(dir);
    assertThat(changed).isNotEqualTo(first).isEqualTo(scriptHash(dir));

    Files.move(dir.resolve("conf/B.conf"), dir.resolve("conf/C.conf"));
    assertThat(ContentHash.of(dir)).isNotEqualTo(changed).isEqualTo(scriptHash(dir));
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  /** content_hash of scripts/install-test-deps.sh, run by bash on the same directory. */
  private static String scriptHash(Path dir) throws Exception {
    String script = "source <(sed -n '/^content_hash()/,/^}/p' scripts/install-test-deps.sh) && content_hash \"$1\"";
    Process p = new ProcessBuilder("bash", "-c", script, "hash", dir.toString()).directory(REPO.toFile())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
