package dev.sluice.broker.data;

import io.vertx.core.Future;
import java.util.concurrent.Callable;

/**
 * Where scan tasks run: in the broker, the shared "sluice-scan" worker pool. The returned future may
 * already be complete when it is returned (a worker that finished before the data plane attached its
 * handler), so its handler can run inside the call that started the scan.
 */
@FunctionalInterface
interface ScanExecutor {

  Future<ScanResult> execute(Callable<ScanResult> scan);
}
