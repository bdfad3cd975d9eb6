package dev.sluice.broker.snapshot;

import java.util.List;

/**
 * One chunk's SELECT: its text and its parameters, each bound as untyped text and cast in the query.
 *
 * @param sql        the statement; every table column in table-info order, then (keyless tables) the row's ctid
 * @param parameters the key literals of the position, in key order
 * @param ctidColumn the 1-based result column of the ctid, 0 for a keyed chunk
 */
public record ChunkQuery(String sql, List<String> parameters, int ctidColumn) {

  public ChunkQuery {
    parameters = List.copyOf(parameters);
  }
}
