package dev.sluice.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Heap of another JVM on this machine, read with {@code jcmd} (the JDK's own tool): a full GC first
 * ({@code GC.run}), then the used bytes of {@code GC.heap_info}, so the figure is live data, not garbage.
 *
 * <pre>{@code
 * long live = JvmHeap.usedAfterGc(broker.pid());
 * }</pre>
 */
public final class JvmHeap {

  private static final Pattern USED = Pattern.compile("total \\d+K, used (\\d+)K");

  private JvmHeap() {}

  public static long usedAfterGc(long pid) {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher m = USED.matcher(info);
    if (!m.find()) {
      throw new IllegalStateException("jcmd " + pid + " GC.heap_info printed no 'used' figure:\n" + info);
    }
    return Long.parseLong(m.group(1)) * 1024;
  }

  private static String jcmd(long pid, String command) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("jcmd " + pid + " " + command + " failed:\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + jcmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
