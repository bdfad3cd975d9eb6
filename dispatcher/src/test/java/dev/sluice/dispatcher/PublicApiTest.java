package dev.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The public packages {@code dev.sluice.dispatcher}, {@code .sink} and {@code .changefeed} (and the errors of
 * {@code dev.sluice.api.error} they report) are what users need and are documented: the javadoc tool's
 * doclint over them reports no public type, constant, constructor or method without a comment and no broken tag or
 * reference (a one-line comment need not repeat every parameter as a tag), and the dispatcher state
 * machine lives in the engine's package, not here (issue #18).
 */
class PublicApiTest {

  private static final Path PACKAGE = Path.of("src/main/java/dev/sluice/dispatcher");

  // the errors a listener gets (onError, SluiceClient's futures) are sluice-api's, which a consumer embeds too
  private static final Path ERRORS = Path.of("../api/src/main/java/dev/sluice/api/error");

  private static List<Path> sources() throws IOException {
    return sourcesOf(PACKAGE);
  }

  private static List<Path> sourcesOf(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  @Test
  void everyPublicTypeAndMethodHasJavadocAndNoBrokenTag(@TempDir Path out) throws IOException {
    DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files = javadoc.getStandardFileManager(diagnostics, null, null)) {
      // javadoc stops reporting after 100 warnings, and the skipped no-@param ones alone pass that
      List<String> options = List.of("-Xdoclint:all", "-Xmaxwarns", "100000", "-Xmaxerrs", "100000", "-quiet", "-d",
          out.toString(), "-classpath",
          System.getProperty("java.class.path"), "-sourcepath", "src/main/java");
      StringWriter log = new StringWriter();
      javadoc.getTask(log, files, diagnostics, null, options,
          files.getJavaFileObjectsFromPaths(Stream.of(sources(), sourcesOf(ERRORS), sourcesOf(PACKAGE.resolve("sink")),
              sourcesOf(PACKAGE.resolve("changefeed"))).flatMap(List::stream).toList())).call();
      List<String> problems = new ArrayList<>();
      for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
        String message = d.getMessage(null);
        // a one-line comment may say what a parameter is in prose: no @param/@return demanded, a comment is
        if (message.startsWith("no @param") || message.startsWith("no @return") || message.startsWith("no @throws")) {
          continue;
        }
        String source = d.getSource() == null ? "" : d.getSource().getName();
        if (d.getKind() != Diagnostic.Kind.NOTE && (source.contains("dev/sluice/api/error/")
            || source.contains("dev/sluice/dispatcher/") && !source.contains("dev/sluice/dispatcher/collector/"))) {
          problems.add(Path.of(d.getSource().getName()).getFileName() + ":" + d.getLineNumber() + " "
              + message);
        }
      }
      assertThat(problems).as("doclint findings in dev.sluice.dispatcher(.sink, .changefeed), dev.sluice.api.error")
          .isEmpty();
    }
  }

  /**
   * The copy-text feature's public surface, added on purpose and kept this small: a sink reaches a READ row's COPY
   * line through {@link RowImage#copyLine()}, a test or another source builds such an image with
   * {@link RowImage#ofCopyLine}, and {@link CopyLine} is a plain record. The wire's CopyRows stays internal.
   */
  @Test
  void copyTextReachesThePublicApiOnlyThroughCopyLine() {
    assertThat(Stream.of(RowImage.class.getMethods())
        .filter(m -> m.getReturnType() == CopyLine.class || Stream.of(m.getParameterTypes())
            .anyMatch(p -> p == CopyLine.class || p.getName().startsWith("dev.sluice.api.v1.ColumnCodec")))
        .map(java.lang.reflect.Method::getName)).containsExactlyInAnyOrder("copyLine", "ofCopyLine");
    assertThat(Stream.of(CopyLine.class.getDeclaredMethods())
        .filter(m -> java.lang.reflect.Modifier.isPublic(m.getModifiers())).map(java.lang.reflect.Method::getName))
        .containsExactlyInAnyOrder("buffer", "offset", "end", "lengthWithNewline", "toString", "equals", "hashCode");
    assertThat(Stream.of(Transaction.class, RowChangeView.class).flatMap(c -> Stream.of(c.getMethods()))
        .flatMap(m -> Stream.concat(Stream.of(m.getReturnType()), Stream.of(m.getParameterTypes())))
        .map(Class::getName)).doesNotContain("dev.sluice.api.v1.CopyRows");
  }

  @Test
  void theStateMachineIsNotPublicApi() throws IOException {
    assertThat(sources()).map(p -> p.getFileName().toString()).doesNotContain("DispatcherState.java",
        "DispatcherInput.java", "DispatcherTransitions.java", "DispatcherEffect.java", "Transition.java");
  }
}
