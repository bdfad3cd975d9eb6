package dev.sluice.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A changefeed in its own JVM ({@link ChangefeedMain}), so it can be killed with SIGKILL mid-batch and
 * started again: the JDBC sink's checkpoint, written in the same transaction as the rows, is all that
 * survives.
 *
 * <pre>{@code
 * try (ChangefeedProcess cf = ChangefeedProcess.start("cf", setup, logs)) {
 *   cf.kill9();
 *   cf.restart();
 * }
 * }</pre>
 */
public final class ChangefeedProcess implements AutoCloseable {

  private final String name;
  private final ChangefeedSetup setup;
  private final Path logDir;
  private ChildJvm jvm;

  private ChangefeedProcess(String name, ChangefeedSetup setup, Path logDir) {
    this.name = name;
    this.setup = setup;
    this.logDir = logDir;
  }

  public static ChangefeedProcess start(String name, ChangefeedSetup setup, Path logDir) {
    ChangefeedProcess p = new ChangefeedProcess(name, setup, logDir);
    p.launch();
    return p;
  }

  private void launch() {
    jvm = ChildJvm.start(name, ChangefeedMain.class, List.of("-Xmx256m",
        "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir")), setup.toArgs(), logDir);
    jvm.awaitLine("CHANGEFEED STARTED", Duration.ofMinutes(2));
  }

  public long pid() {
    return jvm.pid();
  }

  public boolean isAlive() {
    return jvm.isAlive();
  }

  public void kill9() {
    jvm.kill9();
  }

  public void restart() {
    if (jvm.isAlive()) {
      throw new IllegalStateException(name + " is still running (pid " + jvm.pid() + ")");
    }
    launch();
  }

  @Override
  public void close() {
    if (jvm != null) {
      jvm.close();
    }
  }
}
