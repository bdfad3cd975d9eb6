package dev.sluice.broker.changefeed;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.RequestRejectedException;

/** No changefeed (or no deletion of that generation) with this id; the admin API answers 404. *
 * <pre>{@code
 * throw ChangefeedNotFoundException.of("orders");   // the admin API answers 404 NOT_FOUND
 * }</pre>
 */
public final class ChangefeedNotFoundException extends RequestRejectedException {

  private final String id;

  public ChangefeedNotFoundException(String id, String message) {
    super(ErrorCode.INVALID_REQUEST, message);
    this.id = id;
  }

  public static ChangefeedNotFoundException of(String id) {
    return new ChangefeedNotFoundException(id, "no changefeed \"" + id + "\"; GET /api/v1/changefeeds lists them");
  }

  public String id() {
    return id;
  }
}
