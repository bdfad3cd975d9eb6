package dev.sluice.broker.store;

/**
 * Where capture resumes after a restart.
 *
 * @param lastCommitTs    commit ts of the last transaction durably stored; replayed transactions at or
 *                        below it are skipped
 * @param restartPosition source position to restart the stream from (PostgreSQL: the end LSN of that
 *                        transaction, confirmed upstream as flushed)
 */
public record SourcePosition(long lastCommitTs, long restartPosition) {

  public SourcePosition {
    if (lastCommitTs < 0 || restartPosition < 0) {
      throw new IllegalArgumentException("positions must be >= 0, got (" + lastCommitTs + ", " + restartPosition + ")");
    }
  }
}
