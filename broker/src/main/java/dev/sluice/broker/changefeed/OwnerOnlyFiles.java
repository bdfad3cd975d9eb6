package dev.sluice.broker.changefeed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a directory that holds secrets (the changefeed store: sink URIs with their passwords)
 * readable by the server's user only: the directory {@code 0700}, every file in it {@code 0600}.
 * RocksDB creates its files with the process umask (usually {@code 0644}) and offers no mode of its
 * own, so the files are tightened after each change; the {@code 0700} directory keeps anyone else out
 * in between. On a file system without POSIX permissions it does nothing and says so once.
 *
 * <pre>{@code
 * OwnerOnlyFiles.createDirectory(dir);   // 0700
 * OwnerOnlyFiles.restrict(dir);          // 0700, files 0600
 * }</pre>
 */
final class OwnerOnlyFiles {

  static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
  static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
  private static final Logger log = LoggerFactory.getLogger(OwnerOnlyFiles.class);
  private static volatile boolean warned;

  private OwnerOnlyFiles() {}

  /** Creates {@code dir} (and missing parents) with mode {@code 0700} for {@code dir}, then restricts it. */
  static void createDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir) && posix(dir.getParent() == null ? dir : nearestExisting(dir))) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
    } else {
      Files.createDirectories(dir);
    }
    restrict(dir);
  }

  /** Sets {@code dir} to {@code 0700} and its files to {@code 0600} (only those that are not already). */
  static void restrict(Path dir) {
    if (!posix(dir)) {
      return;
    }
    try {
      if (!Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS).equals(DIRECTORY)) {
        Files.setPosixFilePermissions(dir, DIRECTORY);
      }
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
        for (Path f : files) {
          if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
              && !Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS).equals(FILE)) {
            Files.setPosixFilePermissions(f, FILE);
          }
        }
      }
    } catch (java.nio.file.NoSuchFileException e) {
      // a file RocksDB removed while we listed: nothing to protect
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make " + dir + " readable by its owner only: " + e.getMessage(), e);
    }
  }

  private static Path nearestExisting(Path dir) {
    Path p = dir.toAbsolutePath();
    while (p.getParent() != null && !Files.exists(p)) {
      p = p.getParent();
    }
    return p;
  }

  private static boolean posix(Path p) {
    boolean posix = p.getFileSystem().supportedFileAttributeViews().contains("posix");
    if (!posix && !warned) {
      warned = true;
      log.atWarn().addKeyValue("dir", p).log("the file system has no POSIX permissions: the changefeed store's"
          + " secrets are protected only by the directory's own access rules");
    }
    return posix;
  }
}
