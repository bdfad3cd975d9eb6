package dev.sluice.it;

import dev.sluice.dispatcher.changefeed.ChangefeedStatus;

/**
 * A standalone "changefeed process": one {@link LocalChangefeed} writing into a downstream PostgreSQL,
 * configured by arguments ({@link ChangefeedSetup#toArgs()}), so a test can kill it with SIGKILL and
 * start it again. Prints {@code CHANGEFEED STARTED} once running; exits 1 when the changefeed fails.
 *
 * <pre>
 * java -cp ... dev.sluice.it.ChangefeedMain --broker 127.0.0.1:8300 --downstream jdbc:postgresql://... \
 *     --id cf1 --filter 'public.*'
 * </pre>
 */
public final class ChangefeedMain {

  private ChangefeedMain() {}

  public static void main(String[] args) throws Exception {
    ChangefeedSetup setup = ChangefeedSetup.fromArgs(args);
    LocalChangefeed cf = LocalChangefeed.start(setup);
    Runtime.getRuntime().addShutdownHook(new Thread(cf::close, "changefeed-shutdown"));
    System.out.println("CHANGEFEED STARTED " + setup.id());
    System.out.flush();
    try {
      cf.runtime().completion().toCompletableFuture().join();
    } catch (RuntimeException e) {
      ChangefeedStatus s = cf.status();
      System.out.println("CHANGEFEED FAILED " + s.error());
      System.exit(1);
    }
  }
}
