package dev.sluice.broker.startup;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks the data directory before the broker opens anything in it: it is (or can be made) a
 * directory, this user can write it, and the subdirectories the broker keeps there are directories. A
 * failure names the path, what is wrong with it and the setting that chose it, rather than surfacing
 * later as a store error that says to check disk space.
 *
 * <pre>{@code
 * DataDirCheck.require(Path.of("/var/lib/sluice"), "flag --data-dir", List.of("events", "schema"));
 * }</pre>
 */
public final class DataDirCheck {

  private DataDirCheck() {}

  /**
   * @param dataDir the data directory (absolute)
   * @param source  where it was set ("flag --data-dir", "the default")
   * @param subdirs the subdirectories the broker keeps in it
   * @throws StartupCheckException naming the path and what is wrong with it
   */
  public static void require(Path dataDir, String source, List<String> subdirs) {
    String setting = " (dataDir, from " + source + "; set it with --data-dir, SLUICE_DATA_DIR or dataDir in the"
        + " configuration file)";
    if (Files.exists(dataDir) && !Files.isDirectory(dataDir)) {
      throw new StartupCheckException("the data directory " + dataDir + " is a file, not a directory" + setting
          + ": point it at a directory, or move the file away");
    }
    create(dataDir, "the data directory " + dataDir, setting);
    probeWritable(dataDir, "the data directory " + dataDir, setting);
    for (String sub : subdirs) {
      Path p = dataDir.resolve(sub);
      if (Files.exists(p) && !Files.isDirectory(p)) {
        throw new StartupCheckException(p + " is a file, but the broker keeps its " + sub + "/ directory there"
            + setting + ": move the file away, or choose another data directory");
      }
      if (Files.isDirectory(p)) {
        probeWritable(p, p.toString(), setting);
      }
    }
  }

  private static void create(Path dir, String what, String setting) {
    for (Path p = dir.getParent(); p != null; p = p.getParent()) {
      if (Files.exists(p)) {
        if (!Files.isDirectory(p)) {
          throw new StartupCheckException("cannot create " + what + ": " + p + " is a file, not a directory" + setting);
        }
        break;
      }
    }
    try {
      Files.createDirectories(dir);
    } catch (FileAlreadyExistsException e) {
      throw new StartupCheckException("cannot create " + what + ": " + e.getFile() + " is a file, not a directory"
          + setting, e);
    } catch (AccessDeniedException e) {
      throw new StartupCheckException("cannot create " + what + ": permission denied on " + e.getFile() + " for user "
          + System.getProperty("user.name") + setting + ": create it and give this user write access, or choose"
          + " another directory", e);
    } catch (FileSystemException e) {
      throw new StartupCheckException("cannot create " + what + ": " + (e.getReason() == null ? e : e.getReason())
          + " (" + e.getFile() + ")" + setting, e);
    } catch (IOException e) {
      throw new StartupCheckException("cannot create " + what + ": " + e + setting, e);
    }
  }

  private static void probeWritable(Path dir, String what, String setting) {
    try {
      Path probe = Files.createTempFile(dir, ".write-check", ".tmp");
      Files.delete(probe);
    } catch (AccessDeniedException e) {
      throw new StartupCheckException(what + " is not writable by user " + System.getProperty("user.name") + setting
          + ": give this user write access (chown/chmod), or choose another directory", e);
    } catch (FileSystemException e) {
      throw new StartupCheckException(what + " cannot be written: " + (e.getReason() == null ? e : e.getReason())
          + setting, e);
    } catch (IOException e) {
      throw new StartupCheckException(what + " cannot be written: " + e + setting, e);
    }
  }
}
