package dev.sluice.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.error.SluiceException;
import dev.sluice.dispatcher.ClientConfig;
import dev.sluice.dispatcher.SluiceClient;
import dev.sluice.it.BrokerProcess;
import dev.sluice.it.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The examples as a new user runs them, against a real broker, so they never rot (issue #18):
 * <ul>
 *   <li>{@code examples/java}, copied into an empty directory, built by Maven from the artifacts this build
 *       installed (sluice-bom, sluice-dispatcher), its dependency tree free of JDBC drivers, gRPC servers and
 *       Guava with one protobuf version, then run twice: it prints rows, saves its checkpoint, exits, and the
 *       second run resumes with no row lost and none printed twice. Its program is the README's example
 *       (ReadmeExampleTest in dispatcher/);</li>
 *   <li>{@code examples/node}, a dispatcher on @grpc/grpc-js from the proto files alone ({@code npm ci} is done by
 *       {@code make deps}), run twice the same way.</li>
 * </ul>
 */
class ExamplesIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);
  private static final Path CHECKOUT = Path.of(System.getProperty("sluice.checkout", "..")).toAbsolutePath().normalize();

  @RegisterExtension
  final ItLogs logs = new ItLogs();

  @Test
  void theJavaExampleBuildsFromThePublishedArtifactsWithALeanTreeAndResumesWithoutGapOrDuplicate() throws Exception {
    Path project = copyExample("java", logs.data("java-example"));
    String mvn = System.getProperty("sluice.maven.home") == null ? "mvn"
        : Path.of(System.getProperty("sluice.maven.home"), "bin", "mvn").toString();
    List<String> build = new ArrayList<>(List.of(mvn, "-B", "-ntp", "-q", "-f", project.resolve("pom.xml").toString()));
    if (System.getProperty("sluice.maven.repo") != null) {
      build.add("-Dmaven.repo.local=" + System.getProperty("sluice.maven.repo"));
    }
    build.addAll(List.of("compile", "dependency:build-classpath", "-Dmdep.outputFile=" + project.resolve("cp.txt"),
        "dependency:list", "-DincludeScope=runtime", "-DoutputFile=" + project.resolve("deps.txt")));
    run("java-example-build", build, project, Duration.ofMinutes(5));

    assertLeanConsumerTree(Files.readAllLines(project.resolve("deps.txt")));

    String classpath = project.resolve("target/classes") + java.io.File.pathSeparator
        + Files.readString(project.resolve("cp.txt")).strip();
    Path checkpoint = project.resolve("orders.checkpoint");
    try (PostgresServer up = PostgresServer.upstream();
         BrokerProcess broker = BrokerProcess.start("broker", BrokerProcess.options(logs.data("broker"), up),
             logs.dir())) {
      up.exec("CREATE TABLE public.orders (id bigint PRIMARY KEY, note text)");
      awaitTableKnown(broker.grpcAddress(), "public.orders");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> first = List.of(java, "-cp", classpath, "example.OrdersToConsole", broker.grpcAddress(),
          "public.orders", checkpoint.toString(), "3");
      // first run: no checkpoint, so it starts now; the rows are written once it streams
      Process p1 = start("java-example-1", first, project);
      awaitOutput(p1, logs.dir().resolve("java-example-1.err"), "subscription STREAMING");
      insert(up, 1, 3);
      List<Long> run1 = ids(finish("java-example-1", p1), Pattern.compile("public\\.orders ROW_OP_INSERT \\{id=(\\d+),"));
      assertThat(readCheckpoint(checkpoint)).as("a checkpoint was saved").isNotBlank();
      insert(up, 4, 5);   // while no client runs: the second run must resume and find them

      List<String> second = new ArrayList<>(first);
      second.set(second.size() - 1, "2");
      List<Long> run2 = ids(finish("java-example-2", start("java-example-2", second, project)),
          Pattern.compile("public\\.orders ROW_OP_INSERT \\{id=(\\d+),"));
      assertNoGapNoDuplicate(run1, run2);
    }
  }

  @Test
  void theNodeExampleSpeaksTheProtocolFromTheProtoFilesAndResumesWithoutGapOrDuplicate() throws Exception {
    Path node = CHECKOUT.resolve("examples/node");
    assertThat(node.resolve("node_modules/@grpc/grpc-js")).as("examples/node is installed: run `make deps`"
        + " (npm ci in examples/node, scripts/install-test-deps.sh)").isDirectory();
    Path checkpoint = logs.data("node-example").resolve("orders.checkpoint");
    Files.createDirectories(checkpoint.getParent());
    try (PostgresServer up = PostgresServer.upstream();
         BrokerProcess broker = BrokerProcess.start("broker", BrokerProcess.options(logs.data("broker"), up),
             logs.dir())) {
      up.exec("CREATE TABLE public.orders (id bigint PRIMARY KEY, note text)");
      awaitTableKnown(broker.grpcAddress(), "public.orders");
      List<String> first = List.of("node", node.resolve("dispatcher.js").toString(), "--broker", broker.grpcAddress(),
          "--table", "public.orders", "--checkpoint", checkpoint.toString(), "--stop-after", "3");
      Process p1 = start("node-example-1", first, node);
      awaitOutput(p1, logs.dir().resolve("node-example-1.err"), "streaming epoch 1");
      insert(up, 1, 3);
      Pattern row = Pattern.compile("\"op\":\"INSERT\",\"row\":\\{\"id\":\"(\\d+)\"");
      List<Long> run1 = ids(finish("node-example-1", p1), row);
      insert(up, 4, 5);
      List<String> second = new ArrayList<>(first);
      second.set(second.size() - 1, "2");
      List<Long> run2 = ids(finish("node-example-2", start("node-example-2", second, node)), row);
      assertNoGapNoDuplicate(run1, run2);
    }
  }

  /** What a consumer embeds: no JDBC driver, no gRPC server, no Guava, one protobuf version. */
  static void assertLeanConsumerTree(List<String> dependencyList) {
    List<String> artifacts = dependencyList.stream().map(String::strip).filter(l -> l.matches("[\\w.-]+:[\\w.-]+:.*"))
        .toList();
    assertThat(artifacts).as("the consumer's resolved dependencies").isNotEmpty()
        .anySatisfy(a -> assertThat(a).startsWith("dev.sluice:sluice-dispatcher:"));
    assertThat(artifacts).as("JDBC drivers").noneMatch(a -> a.startsWith("org.postgresql:") || a.startsWith("org.mariadb.jdbc:")
        || a.startsWith("com.mysql:") || a.startsWith("mysql:") || a.contains("jdbc"));
    assertThat(artifacts).as("gRPC servers").noneMatch(a -> a.startsWith("io.vertx:vertx-grpc-server:")
        || a.startsWith("io.grpc:grpc-netty") || a.startsWith("io.grpc:grpc-servlet") || a.startsWith("io.vertx:vertx-web:"));
    assertThat(artifacts).as("Guava").noneMatch(a -> a.startsWith("com.google.guava:guava:"));
    TreeSet<String> protobufVersions = new TreeSet<>();
    for (String a : artifacts) {
      String[] parts = a.split(":");
      if (parts[0].equals("com.google.protobuf")) {
        protobufVersions.add(parts[3]);
      }
    }
    assertThat(protobufVersions).as("protobuf versions in %s", artifacts).hasSize(1);
  }

  /**
   * Until the broker has captured the table's CREATE: an example started before that would be refused with
   * UNKNOWN_TABLE, which is right for it and not what this test is about.
   */
  private static void awaitTableKnown(String broker, String table) {
    try (SluiceClient client = SluiceClient.connect(ClientConfig.of(broker).withCollectorId("examples-it"))) {
      await().atMost(Duration.ofSeconds(60))
          .ignoreExceptionsMatching(e -> e.getCause() instanceof SluiceException)   // UNKNOWN_TABLE until captured
          .until(() -> client.tableSchema(table, 0).toCompletableFuture().get(10, TimeUnit.SECONDS) != null);
    }
  }

  /** Rows {@code from..to}, one transaction each. */
  private static void insert(PostgresServer up, int from, int to) {
    for (int i = from; i <= to; i++) {
      up.exec("INSERT INTO public.orders VALUES (" + i + ", 'order " + i + "')");
    }
  }

  private static void assertNoGapNoDuplicate(List<Long> run1, List<Long> run2) {
    assertThat(run1).as("first run").isNotEmpty();
    List<Long> all = new ArrayList<>(run1);
    all.addAll(run2);
    assertThat(all).as("rows printed by both runs, in order").containsExactly(1L, 2L, 3L, 4L, 5L);
  }

  private static String readCheckpoint(Path file) throws IOException {
    return Files.readString(file).strip();
  }

  private Path copyExample(String name, Path target) throws IOException {
    Path source = CHECKOUT.resolve("examples").resolve(name);
    try (Stream<Path> files = Files.walk(source)) {
      for (Path p : files.filter(p -> !p.toString().contains("/target")).toList()) {
        Path dest = target.resolve(source.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(p, dest, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return target;
  }

  private Process start(String name, List<String> command, Path dir) throws IOException {
    return new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(logs.dir().resolve(name + ".out").toFile())
        .redirectError(logs.dir().resolve(name + ".err").toFile()).start();
  }

  private void run(String name, List<String> command, Path dir, Duration timeout) throws Exception {
    Process p = start(name, command, dir);
    if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(name + " did not finish within " + timeout + ": " + tail(name));
    }
    assertThat(p.exitValue()).as("%s exit code; its output: %s", name, tail(name)).isZero();
  }

  /** Waits for the process to exit 0 and returns its stdout lines. */
  private List<String> finish(String name, Process p) throws Exception {
    if (!p.waitFor(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(name + " did not exit within " + RUN_TIMEOUT + ": " + tail(name));
    }
    assertThat(p.exitValue()).as("%s exit code; its output: %s", name, tail(name)).isZero();
    return Files.readAllLines(logs.dir().resolve(name + ".out"));
  }

  private static void awaitOutput(Process p, Path err, String fragment) throws Exception {
    long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.exists(err) && Files.readString(err).contains(fragment)) {
        return;
      }
      if (!p.isAlive()) {
        throw new AssertionError("exited with " + p.exitValue() + " before \"" + fragment + "\": "
            + (Files.exists(err) ? Files.readString(err) : ""));
      }
      p.waitFor(100, TimeUnit.MILLISECONDS);   // polls the log file; returns early when the process exits
    }
    throw new AssertionError("no \"" + fragment + "\" within " + RUN_TIMEOUT + ": " + Files.readString(err));
  }

  private String tail(String name) throws IOException {
    StringBuilder b = new StringBuilder();
    for (String s : List.of(".out", ".err")) {
      Path f = logs.dir().resolve(name + s);
      if (Files.exists(f)) {
        List<String> lines = Files.readAllLines(f);
        b.append(s).append(": ").append(String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
      }
    }
    return b.toString();
  }

  private static List<Long> ids(List<String> lines, Pattern row) {
    List<Long> out = new ArrayList<>();
    for (String l : lines) {
      Matcher m = row.matcher(l);
      if (m.find()) {
        out.add(Long.parseLong(m.group(1)));
      }
    }
    return out;
  }
}
