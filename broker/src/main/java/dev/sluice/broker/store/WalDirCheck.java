package dev.sluice.broker.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Before the store opens: no WAL directory but the configured one holds WAL files with writes in them.
 * RocksDB replays only {@code wal_dir}'s {@code *.log} files and then moves on past their numbers, so a
 * changed {@code walDir} silently loses every write not yet flushed to SST files, even after a clean
 * stop (closing does not flush the memtables). The places looked at are {@code dataDir} (RocksDB's
 * default) and the {@code wal_dir} the latest {@code OPTIONS-*} file of the store recorded. Empty WAL
 * files (one is left by every open) hold nothing and are ignored.
 *
 * <pre>{@code
 * WalDirCheck.require(config);   // throws WalDirChangedException naming both directories
 * }</pre>
 */
final class WalDirCheck {

  private static final Pattern WAL_FILE = Pattern.compile("\\d+\\.log");
  private static final Pattern OPTIONS_FILE = Pattern.compile("OPTIONS-(\\d+)");
  private static final Pattern WAL_DIR_OPTION = Pattern.compile("^\\s*wal_dir=(.*)$", Pattern.MULTILINE);

  private WalDirCheck() {}

  /**
   * @throws WalDirChangedException when another WAL directory holds non-empty WAL files
   * @throws IOException when a directory or the OPTIONS file cannot be read
   */
  static void require(EventStoreConfig config) throws IOException {
    Path dataDir = config.dataDir();
    Path walDir = config.effectiveWalDir();
    Set<Path> others = new LinkedHashSet<>();
    others.add(dataDir);
    recordedWalDir(dataDir).ifPresent(others::add);
    for (Path other : others) {
      if (EventStoreConfig.sameDir(other, walDir)) {
        continue;
      }
      List<String> files = walFilesWithData(other);
      if (!files.isEmpty()) {
        throw new WalDirChangedException(dataDir, walDir, other, files);
      }
    }
  }

  /** The {@code wal_dir} of the store's latest OPTIONS file, if it named one. */
  static Optional<Path> recordedWalDir(Path dataDir) throws IOException {
    if (!Files.isDirectory(dataDir)) {
      return Optional.empty();
    }
    Optional<Path> latest;
    try (Stream<Path> files = Files.list(dataDir)) {
      latest = files.filter(p -> OPTIONS_FILE.matcher(p.getFileName().toString()).matches())
          .max(Comparator.comparingLong(WalDirCheck::optionsNumber));
    }
    if (latest.isEmpty()) {
      return Optional.empty();
    }
    Matcher m = WAL_DIR_OPTION.matcher(new String(Files.readAllBytes(latest.get()), StandardCharsets.UTF_8));
    if (!m.find() || m.group(1).isBlank()) {
      return Optional.empty();
    }
    return Optional.of(Path.of(m.group(1).strip()));
  }

  /** Names of the non-empty {@code <number>.log} files in {@code dir}, sorted; none when it does not exist. */
  static List<String> walFilesWithData(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (WAL_FILE.matcher(p.getFileName().toString()).matches() && Files.isRegularFile(p) && Files.size(p) > 0) {
          names.add(p.getFileName().toString());
        }
      }
    }
    names.sort(null);
    return names;
  }

  private static long optionsNumber(Path p) {
    Matcher m = OPTIONS_FILE.matcher(p.getFileName().toString());
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }
}
