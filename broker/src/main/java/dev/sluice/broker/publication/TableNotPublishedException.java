package dev.sluice.broker.publication;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * A REGISTER or RESET of a table the upstream publication leaves out ({@link ErrorCode#TABLE_NOT_PUBLISHED}): the
 * broker would serve it empty, since none of its changes reach capture. The message names the fix.
 *
 * <pre>{@code
 * throw TableNotPublishedException.of("public", "audit", members, "REGISTER", 5);
 * }</pre>
 */
public final class TableNotPublishedException extends RequestRejectedException {

  private TableNotPublishedException(String message) {
    super(ErrorCode.TABLE_NOT_PUBLISHED, message);
  }

  /**
   * @param schema     the table's schema
   * @param table      the table's name
   * @param action     what was refused (REGISTER, RESET)
   * @param rereadSecs how often the broker reads the publication again
   */
  static TableNotPublishedException of(String schema, String table, PublicationMembers members, String action,
      long rereadSecs) {
    String pub = members.publication();
    return new TableNotPublishedException(action + " of " + schema + "." + table + " refused: publication " + pub + " does not"
        + " publish it, so none of its changes reach this broker (it would stream nothing). Add it with ALTER"
        + " PUBLICATION " + pub + " ADD TABLE " + identifier(schema) + "." + identifier(table) + " (the broker reads the publication again within "
        + rereadSecs + " s), or subscribe to a published table");
  }

  /** A name as SQL takes it: quoted unless it is a plain lower-case identifier. */
  private static String identifier(String name) {
    return name.matches("[a-z_][a-z0-9_$]*") ? name : '"' + name.replace("\"", "\"\"") + '"';
  }
}
