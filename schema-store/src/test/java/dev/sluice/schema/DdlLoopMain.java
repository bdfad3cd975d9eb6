package dev.sluice.schema;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The child JVM of {@link SchemaStoreCrashTest}: opens the store in {@code args[0]} with the default
 * (synced) config and applies {@link DdlScript} in a loop, printing {@code ACK <commitTs>} after each
 * {@code apply} returns, until it is killed. Exits by itself when its stdin closes (the parent died).
 */
public final class DdlLoopMain {

  private static final int MAX_DDLS = 20_000;

  private DdlLoopMain() {
  }

  public static void main(String[] args) {
    Thread orphanWatch = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // the parent never writes; EOF means it is gone
        }
      } catch (IOException e) {
        // stdin broken: same as EOF
      }
      Runtime.getRuntime().halt(3);
    }, "orphan-watch");
    orphanWatch.setDaemon(true);
    orphanWatch.start();
    try (RocksSchemaStore store = RocksSchemaStore.open(SchemaStoreConfig.at(Path.of(args[0])),
        new SimpleMeterRegistry())) {
      DdlScript script = new DdlScript();
      for (int i = 0; i < MAX_DDLS; i++) {
        DdlEvent ddl = script.next();
        store.apply(ddl);
        System.out.println("ACK " + ddl.commitTs());
        System.out.flush();
      }
    }
  }
}
