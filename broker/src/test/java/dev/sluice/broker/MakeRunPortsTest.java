package dev.sluice.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code make run}'s ports and data directory are settable ({@code make -n}: the recipe is printed, not
 * run), the default stays the broker's own, and the README shows how.
 */
class MakeRunPortsTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static String runLine(String... vars) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("make", "-s", "-n", "-C", ROOT.toString(), "run"));
    cmd.addAll(List.of(vars));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().filter(l -> l.startsWith("java -jar")).findFirst().orElseThrow(() ->
        new AssertionError("no java -jar line in make -n run:\n" + out));
  }

  @Test
  void makeRunTakesItsPortsAndDataDirectoryFromVariables() throws Exception {
    assertThat(runLine().trim()).isEqualTo("java -jar broker/target/sluice.jar server --demo-workload");
    assertThat(runLine("GRPC_PORT=9300", "ADMIN_PORT=9301", "EMBEDDED_PORT=9302", "DATA_DIR=data-2").trim())
        .isEqualTo("java -jar broker/target/sluice.jar server --demo-workload --grpc-port 9300 --admin-port 9301"
            + " --embedded-port 9302 --data-dir data-2");
    assertThat(runLine("RUN_ARGS=server --help").trim()).isEqualTo("java -jar broker/target/sluice.jar server --help");
    assertThat(Files.readString(ROOT.resolve("README.md"))).contains("make run GRPC_PORT=9300 ADMIN_PORT=9301"
        + " EMBEDDED_PORT=9302");
  }
}
