package dev.sluice.testing.containers;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Network;

/** Each test image serves what the tests rely on, configured as its Dockerfile says. */
class ImagesTest {

  @Test
  void postgresIsFifteenWithLogicalDecoding() throws Exception {
    try (Network net = Network.newNetwork(); PostgresContainer pg = new PostgresContainer(net, "pg")) {
      pg.start();
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), PostgresContainer.USER, null);
           Statement s = c.createStatement()) {
        assertThat(one(s, "SELECT current_setting('server_version_num')::int / 10000")).isEqualTo("15");
        assertThat(one(s, "SHOW wal_level")).isEqualTo("logical");
        assertThat(one(s, "SHOW max_replication_slots")).isEqualTo("10");
        assertThat(one(s, "SELECT lsn IS NOT NULL FROM pg_create_logical_replication_slot('probe', 'pgoutput')"))
            .isEqualTo("t");
      }
    }
  }

  @Test
  void mariaDbIsTenElevenWithARowBinlog() throws Exception {
    try (Network net = Network.newNetwork(); MariaDbContainer db = new MariaDbContainer(net, "db")) {
      db.start();
      try (Connection c = DriverManager.getConnection(db.jdbcUrl(""), MariaDbContainer.USER, MariaDbContainer.PASSWORD);
           Statement s = c.createStatement()) {
        assertThat(one(s, "SELECT VERSION()")).startsWith("10.11.");
        assertThat(one(s, "SELECT CONCAT_WS(',', @@log_bin, @@binlog_format, @@binlog_row_image, @@binlog_row_metadata)"))
            .isEqualTo("ON,ROW,FULL,FULL");
      }
    }
  }

  @Test
  void kafkaTakesAndServesRecordsAtTheAddressItAdvertises() {
    try (Network net = Network.newNetwork(); KafkaContainer kafka = new KafkaContainer(net, "kafka")) {
      kafka.start();
      Properties common = new Properties();
      common.put("bootstrap.servers", kafka.bootstrapServers());
      Properties producerProps = (Properties) common.clone();
      producerProps.putAll(Map.of("key.serializer", StringSerializer.class.getName(),
          "value.serializer", StringSerializer.class.getName(), "acks", "all"));
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
        for (int i = 0; i < 3; i++) {
          producer.send(new ProducerRecord<>("probe", "k" + i, "v" + i));
        }
        producer.flush();
      }
      Properties consumerProps = (Properties) common.clone();
      consumerProps.putAll(Map.of("key.deserializer", StringDeserializer.class.getName(),
          "value.deserializer", StringDeserializer.class.getName(), "group.id", "probe",
          "auto.offset.reset", "earliest"));
      List<String> seen = new ArrayList<>();
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
        consumer.subscribe(List.of("probe"));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seen.size() < 3 && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
            seen.add(r.key() + "=" + r.value());
          }
        }
      }
      assertThat(seen).containsExactly("k0=v0", "k1=v1", "k2=v2");
    }
  }

  private static String one(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }
}
