package dev.sluice.schema;

import java.util.function.Supplier;

/**
 * What a query returned, or which of the store's typed errors it raised with the ts that error names:
 * the common currency of the store and its model.
 *
 * @param value   the returned value; null when an error was raised
 * @param error   the error type; null when a value was returned
 * @param errorTs the drop ts of a {@link TableDroppedException}, the GC ts of a
 *                {@link BelowGcPointException}, 0 otherwise
 */
record Answer(Object value, Class<? extends RuntimeException> error, long errorTs) {

  static Answer of(Object value) {
    return new Answer(value, null, 0);
  }

  static Answer unknown() {
    return new Answer(null, UnknownTableException.class, 0);
  }

  static Answer dropped(long dropTs) {
    return new Answer(null, TableDroppedException.class, dropTs);
  }

  static Answer belowGc(long gcTs) {
    return new Answer(null, BelowGcPointException.class, gcTs);
  }

  /** Runs a store query and records its outcome; errors other than the three typed ones propagate. */
  static Answer from(Supplier<?> query) {
    try {
      return of(query.get());
    } catch (UnknownTableException e) {
      return unknown();
    } catch (TableDroppedException e) {
      return dropped(e.dropTs());
    } catch (BelowGcPointException e) {
      return belowGc(e.gcTs());
    }
  }
}
