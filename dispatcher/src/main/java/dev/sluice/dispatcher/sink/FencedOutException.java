package dev.sluice.dispatcher.sink;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.FatalException;

/**
 * A sink refused a write because a newer owner of the changefeed claimed a higher fencing token: this
 * writer was replaced (a cluster moved the changefeed while this node was cut off or slow) and must stop.
 * Nothing of the refused transaction was kept.
 *
 * <pre>{@code
 * catch (FencedOutException e) { stopHosting(e.changefeedId()); }   // e.heldToken() > e.token()
 * }</pre>
 */
public final class FencedOutException extends FatalException {

  /** The changefeed whose write was refused. */
  private final String changefeedId;
  /** The refused writer's token. */
  private final long token;
  /** The higher token the target holds. */
  private final long heldToken;

  /**
   * A refusal of {@code changefeedId}'s writer holding {@code token} by {@code target}, which holds
   * {@code heldToken}.
   *
   * @param changefeedId the changefeed
   * @param token        this writer's token (0: an unfenced writer)
   * @param heldToken    the token the target holds
   * @param target       where the token is held, for the message (e.g. "the target's sluice_fence")
   */
  public FencedOutException(String changefeedId, long token, long heldToken, String target) {
    super(ErrorCode.FENCED_OUT, "changefeed \"" + changefeedId + "\": " + target + " holds fencing token " + heldToken
        + ", above this writer's " + token + ": a newer owner writes this changefeed, so this one stops"
        + (token == 0 ? " (an unfenced sink never writes where a token was claimed)" : ""));
    this.changefeedId = changefeedId;
    this.token = token;
    this.heldToken = heldToken;
  }

  /** The changefeed whose write was refused. */
  public String changefeedId() {
    return changefeedId;
  }

  /** This writer's token. */
  public long token() {
    return token;
  }

  /** The higher token the sink holds. */
  public long heldToken() {
    return heldToken;
  }
}
