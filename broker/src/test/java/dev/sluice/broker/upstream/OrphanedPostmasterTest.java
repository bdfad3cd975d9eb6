package dev.sluice.broker.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The escalation of {@link OrphanedPostmaster#stop}: the real PostgreSQL case (a fast shutdown that
 * disconnects a client) is {@link KilledBrokerRestartTest}. A PostgreSQL that does not end its fast
 * shutdown cannot be had on demand, so these tests stand in a shell named {@code postgres} that ignores
 * the signals a PostgreSQL would act on.
 */
class OrphanedPostmasterTest {

  @TempDir Path dir;
  private Process standIn;

  @AfterEach
  void kill() throws Exception {
    if (standIn != null) {
      standIn.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aPostmasterThatIgnoresTheFastShutdownGetsAnImmediateOne() throws Exception {
    Path data = dataDirWithPostmaster("trap '' INT");
    OrphanedPostmaster orphan = OrphanedPostmaster.find(data).orElseThrow();
    assertThat(orphan.pid()).isEqualTo(standIn.pid());

    orphan.stop(Duration.ofMillis(300), Duration.ofSeconds(20));

    assertThat(standIn.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(standIn.exitValue()).as("ended by SIGQUIT (128 + 3)").isEqualTo(131);
  }

  @Test
  void aPostmasterThatIgnoresBothIsReportedWithItsPid() throws Exception {
    Path data = dataDirWithPostmaster("trap '' INT QUIT");
    OrphanedPostmaster orphan = OrphanedPostmaster.find(data).orElseThrow();

    assertThatThrownBy(() -> orphan.stop(Duration.ofMillis(200), Duration.ofMillis(200)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("pid " + standIn.pid()).hasMessageContaining("fast and then an immediate shutdown")
        .hasMessageContaining("start the broker again");
    assertThat(standIn.isAlive()).isTrue();
  }

  @Test
  void aStalePidFileOrAnotherProgramIsLeftAlone() throws Exception {
    Path data = Files.createDirectories(dir.resolve("stale"));
    Files.writeString(data.resolve("postmaster.pid"), ProcessHandle.current().pid() + "\n" + data + "\n");
    assertThat(OrphanedPostmaster.find(data)).as("this JVM is no postgres").isEmpty();
    Files.writeString(data.resolve("postmaster.pid"), "not-a-pid\n" + data + "\n");
    assertThat(OrphanedPostmaster.find(data)).isEmpty();
    Files.writeString(data.resolve("postmaster.pid"), ProcessHandle.current().pid() + "\n/elsewhere\n");
    assertThat(OrphanedPostmaster.find(data)).as("a pid file of another data directory").isEmpty();
    assertThat(OrphanedPostmaster.find(dir.resolve("none"))).isEmpty();
  }

  /** A data directory whose postmaster.pid names a running shell called {@code postgres} that runs {@code trap}. */
  private Path dataDirWithPostmaster(String trap) throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path postgres = bin.resolve("postgres");
    Files.copy(Path.of("/bin/sh"), postgres);
    assertThat(postgres.toFile().setExecutable(true)).isTrue();
    standIn = new ProcessBuilder(postgres.toString(), "-c", trap + "; echo up; while :; do sleep 0.1; done")
        .redirectErrorStream(true).start();
    assertThat(new String(standIn.getInputStream().readNBytes(3), java.nio.charset.StandardCharsets.UTF_8))
        .as("the stand-in set its traps").isEqualTo("up\n");
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("postmaster.pid"), standIn.pid() + "\n" + data + "\n");
    return data;
  }
}
