package dev.sluice.dispatcher.collector;

import dev.sluice.api.v1.ChangefeedCredit;
import dev.sluice.api.v1.CreditReport;
import dev.sluice.api.v1.HeartbeatBatch;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the collector's periodic reports from its dispatchers: the batched heartbeat and the credit
 * report (per dispatcher, and per changefeed over the whole stream). Only dispatchers with a live
 * epoch are reported: "never reported" tells the broker not to scan.
 */
final class Reports {

  private Reports() {}

  static HeartbeatBatch heartbeats(Collection<DispatcherSession> sessions) {
    HeartbeatBatch.Builder batch = HeartbeatBatch.newBuilder();
    for (DispatcherSession d : sessions) {
      if (d.isLive()) {
        batch.addHeartbeats(d.heartbeat());
      }
    }
    return batch.build();
  }

  /**
   * @param changefeedQueueBytes      the bytes all dispatchers of one changefeed may hold
   * @param changefeedReceivedOnStream bytes of events received on this stream per changefeed
   */
  static CreditReport credits(Collection<DispatcherSession> sessions, long changefeedQueueBytes,
      Map<String, Long> changefeedReceivedOnStream) {
    CreditReport.Builder report = CreditReport.newBuilder();
    Map<String, Long> heldPerChangefeed = new LinkedHashMap<>();
    for (DispatcherSession d : sessions) {
      if (d.isLive()) {
        report.addDispatchers(d.credit());
        heldPerChangefeed.merge(d.changefeedId(), d.heldBytes(), Long::sum);
      }
    }
    heldPerChangefeed.forEach((cf, held) -> report.addChangefeeds(ChangefeedCredit.newBuilder().setChangefeedId(cf)
        .setAvailableBytes(Math.max(0, changefeedQueueBytes - held))
        .setReceivedBytes(changefeedReceivedOnStream.getOrDefault(cf, 0L))));
    return report.build();
  }
}
