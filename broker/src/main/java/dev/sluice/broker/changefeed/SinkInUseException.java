package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/**
 * A changefeed would write the file (or the checkpoint side file) another changefeed writes: two
 * writers of one JSON lines file interleave lines and overwrite each other's checkpoint, so the second
 * is refused when it is created or updated (the admin API answers 409 naming the other).
 *
 * <pre>{@code
 * catch (SinkInUseException e) { System.err.println("used by " + e.otherId()); }
 * }</pre>
 */
public final class SinkInUseException extends RequestRejectedException {

  private final String id;
  private final String otherId;

  public SinkInUseException(String id, String otherId, String file) {
    super(ErrorCode.INVALID_REQUEST, "sink_uri of changefeed \"" + id + "\": " + file + " is written by changefeed \""
        + otherId + "\" already; give each changefeed its own file");
    this.id = id;
    this.otherId = otherId;
  }

  public String id() {
    return id;
  }

  /** The changefeed that writes the file. */
  public String otherId() {
    return otherId;
  }
}
