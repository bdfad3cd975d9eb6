package dev.sluice.broker.admin;

import dev.sluice.api.error.ErrorCode;
import dev.sluice.api.error.SluiceException;
import dev.sluice.api.error.TransientException;
import dev.sluice.broker.changefeed.ChangefeedNotFoundException;
import dev.sluice.broker.changefeed.DeletionFailedException;
import dev.sluice.broker.changefeed.InvalidChangefeedException;
import dev.sluice.broker.changefeed.InvalidStateException;
import dev.sluice.broker.changefeed.SinkCheckFailedException;
import dev.sluice.broker.changefeed.SinkInUseException;
import dev.sluice.broker.security.AccessDeniedException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletionException;

/**
 * Maps every failure of an admin request, in one place, to a status and a JSON body
 * {@code {"code": ..., "message": ...}} (plus context such as the field, the current state or the
 * status URL). Codes are {@link ErrorCode} names where one fits, else {@code NOT_FOUND},
 * {@code INVALID_STATE}, {@code METHOD_NOT_ALLOWED}, {@code SINK_IN_USE} (409), {@code SINK_CHECK_FAILED} (400).
 *
 * <pre>{@code
 * AdminErrors.Answer a = AdminErrors.answer(new IllegalArgumentException("scanConcurrency must be ..."));
 * // a.status() == 400, a.body().getString("code") == "INVALID_REQUEST"
 * }</pre>
 */
final class AdminErrors {

  private AdminErrors() {}

  /** A status and its body. */
  record Answer(int status, JsonObject body, String location) {}

  static JsonObject error(String code, String message) {
    return new JsonObject().put("code", code).put("message", message);
  }

  static Answer answer(Throwable failure) {
    Throwable e = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    if (e instanceof AccessDeniedException denied) {
      return new Answer(denied.code() == ErrorCode.UNAUTHENTICATED ? 401 : 403,
          error(denied.code().name(), denied.getMessage()), null);
    }
    if (e instanceof InvalidChangefeedException ic) {
      return new Answer(400, error(ic.code().name(), ic.getMessage()).put("field", ic.field()), null);
    }
    if (e instanceof SinkInUseException su) {
      return new Answer(409, error("SINK_IN_USE", su.getMessage()).put("field", "sink_uri").put("id", su.id())
          .put("changefeed", su.otherId()), null);
    }
    if (e instanceof SinkCheckFailedException sc) {
      return new Answer(400, error(SinkCheckFailedException.CODE, sc.getMessage()).put("field", "sink_uri"), null);
    }
    if (e instanceof MemberRoutes.MemberNotFoundException mn) {
      return new Answer(404, error("NOT_FOUND", mn.getMessage()).put("node_id", mn.id), null);
    }
    if (e instanceof ChangefeedNotFoundException nf) {
      return new Answer(404, error("NOT_FOUND", nf.getMessage()).put("id", nf.id()), null);
    }
    if (e instanceof InvalidStateException is) {
      String code = is.code() == ErrorCode.ID_IN_USE ? ErrorCode.ID_IN_USE.name() : "INVALID_STATE";
      return new Answer(409, error(code, is.getMessage()).put("id", is.id()).put("state", is.state().name())
          .put("generation", is.generation()), null);
    }
    if (e instanceof DeletionFailedException df) {
      String url = "/api/v1/changefeeds/" + df.id() + "/deletion/" + df.generation();
      int status = df.causeCode().kind() == ErrorCode.Kind.TRANSIENT ? 503 : 500;
      return new Answer(status, error(df.causeCode().name(), df.getMessage()).put("id", df.id())
          .put("generation", df.generation()).put("status_url", url), url);
    }
    if (e instanceof DecodeException) {
      return new Answer(400, error(ErrorCode.INVALID_REQUEST.name(), "the body is not valid JSON: " + e.getMessage()),
          null);
    }
    if (e instanceof IllegalArgumentException) {
      String code = e.getMessage() != null && e.getMessage().startsWith("unknown ") ? ErrorCode.UNKNOWN_FIELD.name()
          : ErrorCode.INVALID_REQUEST.name();
      return new Answer(400, error(code, e.getMessage()), null);
    }
    if (e instanceof TransientException t) {
      return new Answer(503, error(t.code().name(), t.getMessage()), null);
    }
    if (e instanceof SluiceException s && s.code().kind() == ErrorCode.Kind.REJECTED) {
      return new Answer(400, error(s.code().name(), s.getMessage()), null);
    }
    return new Answer(500, error(ErrorCode.INTERNAL.name(), String.valueOf(e.getMessage() == null ? e : e.getMessage())),
        null);
  }
}
