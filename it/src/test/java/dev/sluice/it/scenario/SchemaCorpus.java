package dev.sluice.it.scenario;

import dev.sluice.it.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Realistic schemas and the changes a user makes to them, for issue #16's "real schemas" test: a shop
 * with foreign keys, identity and serial keys, a composite key, a STORED generated column and savepoints;
 * a {@code pgbench -i} style load (keyless, then keyed); a partitioned event log with rows moving between
 * partitions; quoted mixed-case names and reserved words; a wide table; an inheritance hierarchy; a
 * keyless REPLICA IDENTITY FULL log with equal rows; and the usual column types. Everything is created
 * after the changefeeds started, so its DDL is replicated too; each step is one upstream transaction.
 */
final class SchemaCorpus {

  /** The schemas, for the changefeeds' include rules. */
  static final List<String> SCHEMAS = List.of("shop", "bench", "events", "Mixed", "wide", "inh", "logs", "types");

  static final int WIDE_COLUMNS = 300;

  private SchemaCorpus() {}

  /** The DDL, one transaction per entry (some create several tables at once, parents first). */
  static List<List<String>> ddl() {
    List<List<String>> out = new ArrayList<>();
    out.add(List.of("CREATE SCHEMA shop",
        "CREATE TABLE shop.customers (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, email text NOT NULL UNIQUE,"
            + " name text, created_at timestamptz NOT NULL DEFAULT now(), vip boolean NOT NULL DEFAULT false)",
        "CREATE TABLE shop.products (sku varchar(32) PRIMARY KEY, title text NOT NULL, price numeric(12,2) NOT NULL"
            + " CHECK (price >= 0), attrs jsonb, uid uuid)"));
    out.add(List.of(
        "CREATE TABLE shop.orders (id serial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES shop.customers (id),"
            + " placed date NOT NULL, status text NOT NULL DEFAULT 'new', note text)",
        "CREATE TABLE shop.order_items (order_id int REFERENCES shop.orders (id) ON DELETE CASCADE, line int,"
            + " sku varchar(32) NOT NULL REFERENCES shop.products (sku), qty int NOT NULL,"
            + " weight numeric(10,3) GENERATED ALWAYS AS (qty * 0.125) STORED, PRIMARY KEY (order_id, line))"));
    out.add(List.of("CREATE INDEX orders_placed ON shop.orders (placed)"));   // nothing a derived copy keeps
    out.add(List.of("CREATE TABLE shop.coupons (id int PRIMARY KEY, code text NOT NULL, pct int)"));
    out.add(List.of("CREATE SCHEMA bench",
        "CREATE TABLE bench.accounts (aid int NOT NULL, bid int, abalance int, filler char(84))",
        "CREATE TABLE bench.history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))"));
    out.add(List.of("CREATE SCHEMA events",
        "CREATE TABLE events.log (id bigint, at timestamptz NOT NULL, kind text, payload jsonb, PRIMARY KEY (id, at))"
            + " PARTITION BY RANGE (at)",
        "CREATE TABLE events.log_2024 PARTITION OF events.log FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')"));
    out.add(List.of("CREATE TABLE events.log_2025 PARTITION OF events.log FOR VALUES FROM ('2025-01-01') TO"
        + " ('2026-01-01')"));
    out.add(List.of("CREATE TABLE events.log_rest PARTITION OF events.log DEFAULT"));
    out.add(List.of("CREATE SCHEMA \"Mixed\"",
        "CREATE TABLE \"Mixed\".\"Order Items\" (\"Id\" int PRIMARY KEY, \"select\" text, \"from\" int,"
            + " \"Group\" varchar(10), \"user\" text, \"desc\" boolean)"));
    StringBuilder wide = new StringBuilder("CREATE TABLE wide.t (id int PRIMARY KEY");
    for (int c = 1; c <= WIDE_COLUMNS; c++) {
      wide.append(", c").append(c).append(c % 2 == 0 ? " text" : " bigint");
    }
    out.add(List.of("CREATE SCHEMA wide", wide.append(")").toString()));
    out.add(List.of("CREATE SCHEMA inh", "CREATE TABLE inh.vehicles (id int PRIMARY KEY, name text)",
        "CREATE TABLE inh.trucks (payload int) INHERITS (inh.vehicles)", "ALTER TABLE inh.trucks ADD PRIMARY KEY (id)"));
    out.add(List.of("CREATE SCHEMA logs", "CREATE TABLE logs.lines (at timestamptz, level text, msg text)",
        "ALTER TABLE logs.lines REPLICA IDENTITY FULL"));
    out.add(List.of("CREATE SCHEMA types",
        "CREATE TABLE types.all_kinds (id int PRIMARY KEY, b boolean, i2 smallint, i8 bigint, r real,"
            + " d double precision, n numeric(20,6), t text, vc varchar(40), ch char(5), by bytea, dt date, tm time,"
            + " ts timestamp, tz timestamptz, j json, jb jsonb, u uuid, ia int[], ta text[], ip inet, iv interval)"));
    return out;
  }

  /** The changes, one transaction per entry, in order. */
  static List<List<String>> changes(int rounds) {
    List<List<String>> out = new ArrayList<>();
    out.add(List.of("INSERT INTO shop.products VALUES ('A-1', 'anvil', 19.90, '{\"color\": \"black\"}',"
        + " 'c3b1a0de-0000-4000-8000-000000000001'), ('B-2', 'bell', 4.50, NULL, NULL), ('C-3', 'crate', 0, '{}', NULL)"));
    for (int r = 0; r < rounds; r++) {
      int c = r + 1;
      // a parent and its children in one transaction, in the order the constraints need
      out.add(List.of("INSERT INTO shop.customers (email, name, vip) VALUES ('c" + c + "@example.com', 'Customer "
              + c + "', " + (c % 3 == 0) + ")",
          "INSERT INTO shop.orders (customer_id, placed, note) VALUES ((SELECT id FROM shop.customers WHERE email = 'c"
              + c + "@example.com'), DATE '2024-03-01' + " + r + ", " + (r % 2 == 0 ? "NULL" : "'gift'") + ")",
          "INSERT INTO shop.order_items (order_id, line, sku, qty) VALUES (currval('shop.orders_id_seq'), 1, 'A-1', "
              + (1 + r % 4) + "), (currval('shop.orders_id_seq'), 2, 'B-2', " + (2 + r % 3) + ")"));
      out.add(List.of("UPDATE shop.orders SET status = 'paid' WHERE id % 2 = " + (r % 2),
          "UPDATE shop.order_items SET qty = qty + 1 WHERE line = 2 AND order_id % 3 = " + (r % 3)));
      out.add(List.of("INSERT INTO events.log VALUES (" + (2 * r) + ", TIMESTAMPTZ '2024-06-01 10:00:00+00' + interval '"
          + r + " hours', 'click', '{\"n\": " + r + "}'), (" + (2 * r + 1) + ", TIMESTAMPTZ '2025-02-01 00:00:00+00',"
          + " 'view', NULL), (" + (1000 + r) + ", TIMESTAMPTZ '2031-01-01 00:00:00+00', 'future', '[1, 2]')"));
      out.add(List.of("INSERT INTO \"Mixed\".\"Order Items\" VALUES (" + c + ", 'sel " + c + "', " + r
          + ", 'g" + (r % 4) + "', 'u''" + c + "', " + (r % 2 == 0) + ")"));
      out.add(List.of("INSERT INTO logs.lines VALUES (TIMESTAMPTZ '2024-01-01 00:00:00+00', 'info', 'same line'),"
          + " (TIMESTAMPTZ '2024-01-01 00:00:00+00', 'info', 'same line'), (NULL, 'warn', 'line " + r + "')"));
    }
    out.add(List.of("INSERT INTO bench.accounts SELECT g, 1 + g / 100, 0, '' FROM generate_series(1, 400) g"));
    out.add(List.of("ALTER TABLE bench.accounts ADD PRIMARY KEY (aid)"));
    out.add(List.of("UPDATE bench.accounts SET abalance = abalance + 7 WHERE aid % 9 = 0",
        "INSERT INTO bench.history VALUES (1, 1, 9, 7, TIMESTAMP '2024-01-01 12:00:00', 'x'), (2, 1, 18, 7, NULL, NULL)"));
    // a savepoint rolled back: only the committed rows exist upstream
    out.add(List.of("INSERT INTO shop.products VALUES ('D-4', 'drill', 99.99, NULL, NULL)", "SAVEPOINT s1",
        "INSERT INTO shop.products VALUES ('E-5', 'never', 1, NULL, NULL)", "ROLLBACK TO SAVEPOINT s1",
        "INSERT INTO shop.products VALUES ('F-6', 'file', 2.25, '{\"k\": [1, {\"x\": null}]}', NULL)"));
    out.add(List.of("UPDATE events.log SET at = TIMESTAMPTZ '2025-07-07 07:07:07+00' WHERE id = 0",   // 2024 -> 2025
        "DELETE FROM events.log WHERE id = 3"));
    out.add(List.of("DELETE FROM shop.orders WHERE id = 1"));   // its items go with it (ON DELETE CASCADE)
    out.add(List.of("DROP INDEX shop.orders_placed"));
    // a migration moves the key to a text column: the copies follow it, then rows change by the new key
    out.add(List.of("INSERT INTO shop.coupons SELECT g, 'C' || g, g % 50 FROM generate_series(1, 30) g"));
    out.add(List.of("ALTER TABLE shop.coupons DROP CONSTRAINT coupons_pkey, ADD PRIMARY KEY (code)"));
    out.add(List.of("UPDATE shop.coupons SET pct = pct + 1 WHERE id % 4 = 0", "DELETE FROM shop.coupons WHERE code"
        + " IN ('C3', 'C7')", "UPDATE shop.coupons SET code = 'renamed' WHERE code = 'C9'",
        "INSERT INTO shop.coupons VALUES (1, 'again', 5)"));
    out.add(List.of("UPDATE logs.lines SET msg = 'changed once' WHERE ctid = (SELECT min(ctid) FROM logs.lines"
        + " WHERE msg = 'same line')", "DELETE FROM logs.lines WHERE msg = 'line 0'"));
    StringBuilder wideRow = new StringBuilder("INSERT INTO wide.t VALUES (1");
    for (int c = 1; c <= WIDE_COLUMNS; c++) {
      wideRow.append(", ").append(c % 2 == 0 ? "'v" + c + "'" : Integer.toString(c * 1000));
    }
    out.add(List.of(wideRow.append(")").toString(), "INSERT INTO wide.t (id, c2, c299) VALUES (2, 'two', 2)"));
    out.add(List.of("UPDATE wide.t SET c150 = 'changed', c151 = -1 WHERE id = 1"));
    out.add(List.of("INSERT INTO inh.vehicles VALUES (1, 'car')", "INSERT INTO inh.trucks VALUES (2, 'truck', 7000)"));
    out.add(List.of("UPDATE inh.trucks SET payload = 7500 WHERE id = 2"));
    out.add(List.of("INSERT INTO types.all_kinds VALUES (1, true, -7, 9007199254740993, 0.5, 2.25, 12345.678901,"
        + " 'tab\tnew\nline \"quoted\" ''single''', 'väriant ü', 'ab', '\\xdeadbeef', DATE '2024-02-29',"
        + " TIME '23:59:59.999999', TIMESTAMP '2024-05-01 12:34:56.789', TIMESTAMPTZ '2024-05-01 12:34:56.789+02',"
        + " '{\"b\":1,  \"a\":[true,null]}', '{\"b\": 1, \"a\": [true, null]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',"
        + " '{1,2,NULL}', '{\"x y\",\"q\\\"z\"}', '10.0.0.1', interval '1 day 02:03:04')",
        "INSERT INTO types.all_kinds (id) VALUES (2)"));
    out.add(List.of("UPDATE types.all_kinds SET t = repeat('toast ', 5000), n = -0.000001 WHERE id = 1"));
    out.add(List.of("UPDATE types.all_kinds SET b = false WHERE id = 1"));   // the toasted text is unchanged
    out.add(List.of("ALTER TABLE shop.products ADD COLUMN stock int NOT NULL DEFAULT 10",
        "UPDATE shop.products SET stock = 3 WHERE sku = 'A-1'"));
    out.add(List.of("ALTER TABLE \"Mixed\".\"Order Items\" RENAME COLUMN \"from\" TO \"to\""));
    out.add(List.of("INSERT INTO \"Mixed\".\"Order Items\" VALUES (999, 'after rename', 1, 'g', 'u', NULL)"));
    return out;
  }

  /**
   * A table whose replica identity is a unique index other than its primary key (the log identifies its rows by
   * email, so that is its key), with {@code rounds} rounds of inserts, updates and deletes and one identity change.
   * Set up before a changefeed starts, so its rows are loaded by a snapshot keyed by email.
   */
  static List<List<String>> replicaIdentityIndexTable(int rounds) {
    List<List<String>> out = new ArrayList<>();
    out.add(List.of("CREATE TABLE shop.logins (id int PRIMARY KEY, email text NOT NULL CONSTRAINT logins_email UNIQUE,"
        + " seen int NOT NULL)", "ALTER TABLE shop.logins REPLICA IDENTITY USING INDEX logins_email"));
    for (int r = 0; r < rounds; r++) {
      int c = r + 1;
      out.add(List.of("INSERT INTO shop.logins VALUES (" + c + ", 'u" + c + "@example.com', 0)",
          "UPDATE shop.logins SET seen = seen + 1 WHERE id % 3 = " + (r % 3)));
      if (r % 4 == 3) {
        out.add(List.of("DELETE FROM shop.logins WHERE id = " + (c - 2)));
      }
    }
    return out;
  }

  /** Runs each entry of {@code steps} as one transaction; returns the WAL position after the last. */
  static long run(PostgresServer pg, List<List<String>> steps) throws SQLException {
    try (Connection c = pg.connect()) {
      c.setAutoCommit(false);
      for (List<String> step : steps) {
        try (Statement s = c.createStatement()) {
          for (String sql : step) {
            s.execute(sql);
          }
        }
        c.commit();
      }
    }
    return pg.currentLsn();
  }
}
