package dev.sluice.it.scenario;

import dev.sluice.it.BrokerProcess;
import dev.sluice.it.FaultProxy;
import dev.sluice.it.LoopbackPorts;
import dev.sluice.it.PostgresServer;
import java.util.List;

/**
 * The processes most scenarios share: an upstream PostgreSQL (logical WAL), a downstream PostgreSQL,
 * one broker process capturing the upstream, and a fault proxy in front of the broker's gRPC port.
 * Closed in reverse order.
 *
 * <pre>{@code
 * try (Rig rig = Rig.start(logs)) {
 *   ChangefeedSetup.of(rig.proxy.address(), rig.downstream.jdbcUrl(), "cf", "public.*");
 * }
 * }</pre>
 */
final class Rig implements AutoCloseable {

  final PostgresServer upstream;
  final PostgresServer downstream;
  final BrokerProcess broker;
  final FaultProxy proxy;

  private Rig(PostgresServer upstream, PostgresServer downstream, BrokerProcess broker, FaultProxy proxy) {
    this.upstream = upstream;
    this.downstream = downstream;
    this.broker = broker;
    this.proxy = proxy;
  }

  static Rig start(ItLogs logs) {
    return start(logs, List.of("-Xmx768m"));
  }

  static Rig start(ItLogs logs, List<String> brokerJvmArgs) {
    PostgresServer up = PostgresServer.upstream();
    PostgresServer down = null;
    BrokerProcess broker = null;
    try {
      down = PostgresServer.downstream();
      int proxyPort = LoopbackPorts.free();
      // collectors that learn the broker from GetTopology stay on the proxy, as behind a NAT
      broker = BrokerProcess.start("broker", BrokerProcess.options(logs.data("broker"), up).withJvmArgs(brokerJvmArgs)
          .withAdvertiseAddress("127.0.0.1:" + proxyPort), logs.dir());
      FaultProxy proxy = FaultProxy.start(broker.grpcPort(), proxyPort);
      return new Rig(up, down, broker, proxy);
    } catch (RuntimeException e) {
      if (broker != null) {
        broker.close();
      }
      if (down != null) {
        down.close();
      }
      up.close();
      throw e;
    }
  }

  /** The table's id at the broker: its PostgreSQL oid. */
  long tableId(String table) {
    return upstream.queryLong("SELECT '" + table + "'::regclass::oid");
  }

  /** {@code id -> valueColumn} of every row of an upstream table (bigint columns). */
  java.util.Map<Long, Long> upstreamRows(String table, String valueColumn) {
    java.util.Map<Long, Long> out = new java.util.HashMap<>();
    try (var c = upstream.connect(); var s = c.createStatement();
         var rs = s.executeQuery("SELECT id, " + valueColumn + " FROM " + table)) {
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getLong(2));
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  @Override
  public void close() {
    proxy.close();
    broker.close();
    downstream.close();
    upstream.close();
  }
}
