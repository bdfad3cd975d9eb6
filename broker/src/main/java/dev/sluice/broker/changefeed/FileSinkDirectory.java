package dev.sluice.broker.changefeed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one directory {@code jsonl:file:} sinks may write in ({@link ChangefeedConfig#fileSinkDir}): the admin API
 * creates files as the server's user, so a changefeed must not be able to name {@code /etc} or create
 * {@code /nonexistent/dir}. A relative path is taken inside it; an absolute one must lie inside it; {@code ..}
 * and symbolic links that lead out are refused like any path outside.
 *
 * <pre>{@code
 * FileSinkDirectory sinks = new FileSinkDirectory(Path.of("/var/lib/sluice/sinks"));
 * sinks.confine(SinkUri.parse("jsonl:file:orders.jsonl"));   // jsonl:file:/var/lib/sluice/sinks/orders.jsonl
 * sinks.confine(SinkUri.parse("jsonl:file:/tmp/x.jsonl"));   // InvalidChangefeedException naming the directory
 * }</pre>
 *
 * @param root the directory, absolute
 */
public record FileSinkDirectory(Path root) {

  public FileSinkDirectory {
    if (!root.isAbsolute()) {
      throw new IllegalArgumentException(ChangefeedConfig.FILE_SINK_DIR_KEY + " must be absolute once resolved"
          + " against the data directory, got " + root);
    }
    root = root.normalize();
  }

  /** Creates the directory when missing (at the supervisor's start). */
  void create() {
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the file sink directory " + root + " (setting "
          + ChangefeedConfig.FILE_SINK_DIR_KEY + "): " + e.getMessage(), e);
    }
  }

  /**
   * {@code sink} with its file as an absolute path inside this directory; other sinks as they are.
   *
   * @throws InvalidChangefeedException naming {@code sink_uri}, this directory and the setting when the file is
   *     outside it
   */
  public SinkUri confine(SinkUri sink) {
    if (sink.kind() != SinkUri.Kind.JSONL_FILE) {
      return sink;
    }
    Path given = sink.file();
    Path file = (given.isAbsolute() ? given : root.resolve(given)).normalize();
    if (!file.startsWith(root) || file.equals(root) || leavesThroughLink(file)) {
      throw InvalidChangefeedException.field("sink_uri", sink.uri() + " is outside the file sink directory " + root
          + ": file sinks write only there (setting " + ChangefeedConfig.FILE_SINK_DIR_KEY + "); give a path in it,"
          + " such as jsonl:file:" + (given.getFileName() == null ? "out.jsonl" : given.getFileName()) + " or jsonl:file:"
          + root.resolve(given.getFileName() == null ? Path.of("out.jsonl") : given.getFileName()));
    }
    return SinkUri.parse("jsonl:file:" + file);
  }

  /** Whether the deepest existing ancestor of {@code file} (or the file) resolves outside the directory. */
  private boolean leavesThroughLink(Path file) {
    try {
      Path realRoot = Files.exists(root) ? root.toRealPath() : root;
      Path p = file;
      while (p != null && !Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        p = p.getParent();
      }
      if (p == null || !p.startsWith(root)) {
        return false;   // nothing of it exists inside the directory yet: the lexical check decided
      }
      return !p.toRealPath().startsWith(realRoot);
    } catch (IOException e) {
      return true;   // a dangling link or a path that cannot be resolved: refuse rather than follow it
    }
  }
}
