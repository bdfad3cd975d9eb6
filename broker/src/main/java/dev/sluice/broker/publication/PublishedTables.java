package dev.sluice.broker.publication;

import dev.sluice.schema.TableInfo;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the upstream publication publishes, as capture last read it, for the planes that must not serve a table
 * whose changes never arrive: the control plane refuses REGISTER and RESET of such a table, ListTables and the
 * admin API flag it. Capture writes a new immutable {@link PublicationMembers} after each read; readers take the
 * current one. Tables leaving or joining the publication are logged once each.
 *
 * <pre>{@code
 * PublishedTables published = new PublishedTables(registry);
 * published.update(PublicationMembers.read("sluice_pub", false, Map.of(16410L, "public.audit"), now));
 * published.check(info, "REGISTER");   // throws TableNotPublishedException for public.audit
 * }</pre>
 */
public final class PublishedTables {

  /** How often capture reads the publication again while it streams (and after every DDL it captures). */
  public static final Duration REREAD_INTERVAL = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(PublishedTables.class);

  // written by capture's thread only; an immutable value, so readers need no lock
  private volatile PublicationMembers current = PublicationMembers.unread();

  /** Registers {@code sluice.capture.publication.unpublished} (tables). */
  public PublishedTables(MeterRegistry registry) {
    Gauge.builder("sluice.capture.publication.unpublished", this, p -> p.current.unpublished().size())
        .baseUnit("tables").description("tables capture follows that its publication leaves out: none of their"
            + " changes arrive, REGISTER of them is refused").register(registry);
  }

  /**
   * A holder whose gauge goes to no registry: every table counts as published until a capture updates it (and for
   * good where none does, as in a broker without an upstream).
   */
  public static PublishedTables none() {
    return new PublishedTables(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
  }

  public PublicationMembers current() {
    return current;
  }

  /** Takes a new read; logs each table that left or joined the publication since the last one. */
  public void update(PublicationMembers next) {
    Objects.requireNonNull(next, "next");
    PublicationMembers before = current;
    current = next;
    if (!before.known()) {
      if (!next.unpublished().isEmpty()) {
        log.atWarn().addKeyValue("publication", next.publication()).addKeyValue("tables", next.unpublished().size())
            .addKeyValue("examples", String.join(", ", next.unpublished().values().stream().limit(5).toList()))
            .log("the publication leaves tables out: none of their changes arrive, and REGISTER of them is refused");
      }
      return;
    }
    for (Map.Entry<Long, String> e : next.unpublished().entrySet()) {
      if (before.publishes(e.getKey())) {
        log.atWarn().addKeyValue("publication", next.publication()).addKeyValue("table", e.getValue())
            .addKeyValue("tableId", e.getKey()).log("table not published (left the publication, or created outside"
                + " it): its changes no longer arrive");
      }
    }
    for (Map.Entry<Long, String> e : before.unpublished().entrySet()) {
      if (next.publishes(e.getKey())) {
        log.atInfo().addKeyValue("publication", next.publication()).addKeyValue("table", e.getValue())
            .addKeyValue("tableId", e.getKey()).log("table published now: its changes arrive from here on");
      }
    }
  }

  /**
   * Refuses {@code action} on a table the publication leaves out.
   *
   * @throws TableNotPublishedException when the last read says it is not published
   */
  public void check(TableInfo info, String action) {
    PublicationMembers m = current;
    if (!m.publishes(info.tableId())) {
      throw TableNotPublishedException.of(info.schemaName(), info.tableName(), m, action,
          REREAD_INTERVAL.toSeconds());
    }
  }
}
