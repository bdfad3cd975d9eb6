package dev.sluice.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test server starts wherever the checkout lives, and a server that cannot start says why. */
class MariaDbServerTest {

  /** A clone under /tmp/<40 characters>/<name>/ put mariadbd's socket past the 107 bytes a socket path may have. */
  @Test
  void aServerStartsUnderADirectoryWhosePathIsLongerThanASocketPathMayBe(@TempDir Path tmp) throws Exception {
    Path deep = Files.createDirectories(tmp.resolve("d".repeat(60)).resolve("e".repeat(60)));
    assertThat(deep.toAbsolutePath().toString()).hasSizeGreaterThan(107);
    try (MariaDbServer server = MariaDbServer.start(deep, List.of()); Connection c = server.connect()) {
      assertThat(c.isValid(5)).isTrue();
      assertThat(server.runDir().resolve("mysqld.sock").toString()).hasSizeLessThan(60);
      assertThat(server.runDir().resolve("mysqld.sock")).exists();
    }
  }

  @Test
  void aServerThatExitsDuringItsStartFailsAtOnceWithItsOwnError(@TempDir Path tmp) {
    long started = System.nanoTime();
    assertThatThrownBy(() -> MariaDbServer.start(tmp, List.of("--no-such-option=1")).close())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("mariadbd exited with code")
        .hasMessageContaining("unknown variable 'no-such-option=1'");
    // the wait ends with the server, not at the 30 s start timeout
    assertThat((System.nanoTime() - started) / 1_000_000_000).isLessThan(25);
  }
}
