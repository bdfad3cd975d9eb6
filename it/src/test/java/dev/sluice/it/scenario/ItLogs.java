package dev.sluice.it.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Per-test folders for the logs of the processes a scenario starts ({@code it/target/it-logs/<class>/<test>/})
 * and for their data ({@code it/target/it-data/...}). A passing test's folders are deleted; a failed
 * test's logs are kept for the post-mortem (its data too, for the stores' state).
 *
 * <pre>{@code
 * @RegisterExtension final ItLogs logs = new ItLogs();
 * BrokerProcess.start("broker", BrokerProcess.options(logs.data("broker"), up), logs.dir());
 * }</pre>
 */
final class ItLogs implements BeforeEachCallback, TestWatcher {

  private Path dir;
  private Path data;

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    String cls = context.getRequiredTestClass().getSimpleName();
    String test = context.getRequiredTestMethod().getName();
    Path base = Path.of(System.getProperty("it.logs", "target/it-logs"));
    dir = base.resolve(cls).resolve(test);
    data = base.resolveSibling("it-data").resolve(cls).resolve(test);
    delete(dir);
    delete(data);
    Files.createDirectories(dir);
    Files.createDirectories(data);
  }

  /** Where process logs go. */
  Path dir() {
    return dir;
  }

  /** A fresh data folder named {@code name} (broker data dirs, ...). */
  Path data(String name) {
    return data.resolve(name);
  }

  @Override
  public void testSuccessful(ExtensionContext context) {
    delete(dir);
    delete(data);
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    delete(dir);
    delete(data);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    System.err.println("logs of the failed test kept under " + dir.toAbsolutePath());
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {
    // nothing was created
  }

  private static void delete(Path p) {
    if (p == null || !Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
