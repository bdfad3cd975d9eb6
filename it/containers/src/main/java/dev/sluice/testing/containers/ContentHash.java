package dev.sluice.testing.containers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The content hash that tags a test image: the first 12 hex digits of the SHA-256 over one line
 * {@code "<sha256 of the file>  ./<relative path>\n"} per regular file of the image's directory, sorted by
 * path, with the build output {@code target/} left out. {@code scripts/install-test-deps.sh} computes the
 * same hash ({@code content_hash}) when it builds the image, so a test finds the image of the Dockerfile
 * it is checked out with.
 *
 * <pre>{@code
 * String tag = "sluice-test/postgres:" + ContentHash.of(Path.of("it/docker/postgres"));
 * }</pre>
 */
public final class ContentHash {

  /** Hex digits kept: 48 bits, so two versions of one Dockerfile never share a tag in practice. */
  static final int LENGTH = 12;

  private ContentHash() {}

  public static String of(Path directory) {
    if (!Files.isDirectory(directory)) {
      throw new IllegalArgumentException("not a directory: " + directory);
    }
    Path excluded = directory.resolve("target");
    try (Stream<Path> walk = Files.walk(directory)) {
      List<String> paths = walk.filter(p -> !p.startsWith(excluded))
          .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .map(p -> "./" + slashes(directory.relativize(p)))
          .sorted(ContentHash::compareBytes)   // the script sorts with LC_ALL=C
          .toList();
      StringBuilder listing = new StringBuilder();
      for (String path : paths) {
        listing.append(hex(sha256(Files.readAllBytes(directory.resolve(path.substring(2)))))).append("  ")
            .append(path).append('\n');
      }
      return hex(sha256(listing.toString().getBytes(StandardCharsets.UTF_8))).substring(0, LENGTH);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot hash " + directory, e);
    }
  }

  private static String slashes(Path relative) {
    return relative.toString().replace(relative.getFileSystem().getSeparator(), "/");
  }

  private static int compareBytes(String a, String b) {
    return java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
