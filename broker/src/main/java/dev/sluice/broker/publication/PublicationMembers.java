package dev.sluice.broker.publication;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The tables of one publication as capture last read them from the upstream: which of the tables capture
 * follows the publication leaves out. A table created after the read counts as published until the next
 * read (capture reads again after every DDL it captures and every few seconds).
 *
 * <pre>{@code
 * PublicationMembers m = PublicationMembers.read("sluice_pub", false, Map.of(16410L, "public.audit"), now);
 * m.publishes(16410L);   // false: none of public.audit's changes reach the broker
 * }</pre>
 *
 * @param publication the publication's name, or null when nothing was read (no upstream, capture not started)
 * @param allTables   whether it is {@code FOR ALL TABLES} (then it leaves no captured table out)
 * @param unpublished table id to {@code schema.table} of every ordinary table capture follows that the
 *                    publication leaves out (sorted by id)
 * @param readAtMillis wall-clock time of the read, 0 when nothing was read
 */
public record PublicationMembers(String publication, boolean allTables, SortedMap<Long, String> unpublished,
    long readAtMillis) {

  private static final PublicationMembers UNREAD = new PublicationMembers(null, false, new TreeMap<>(), 0);

  public PublicationMembers {
    unpublished = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(Objects.requireNonNull(unpublished)));
    if (allTables && !unpublished.isEmpty()) {
      throw new IllegalArgumentException("a FOR ALL TABLES publication leaves no table out");
    }
  }

  /** Nothing read: every table counts as published (a broker without an upstream, or before capture's first read). */
  public static PublicationMembers unread() {
    return UNREAD;
  }

  /** A read of {@code publication} at {@code readAtMillis}. */
  public static PublicationMembers read(String publication, boolean allTables, Map<Long, String> unpublished,
      long readAtMillis) {
    return new PublicationMembers(Objects.requireNonNull(publication, "publication"), allTables,
        new TreeMap<>(unpublished), readAtMillis);
  }

  /** Whether capture streams the table's changes, as far as the last read tells. */
  public boolean publishes(long tableId) {
    return !unpublished.containsKey(tableId);
  }

  /** Whether a publication was read. */
  public boolean known() {
    return publication != null;
  }
}
