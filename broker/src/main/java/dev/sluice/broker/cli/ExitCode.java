package dev.sluice.broker.cli;

/**
 * The exit codes of the {@code sluice} client commands, stable for scripts.
 *
 * <pre>{@code
 * sluice changefeed pause orders || [ $? -eq 3 ] && echo "no such changefeed"
 * }</pre>
 */
public final class ExitCode {

  /** Done. */
  public static final int OK = 0;
  /** The server failed or could not be reached (HTTP 5xx, connection refused, timeout). */
  public static final int SERVER = 1;
  /** Bad usage: a wrong option, or a request the server refused as invalid (HTTP 400). */
  public static final int USAGE = 2;
  /** No such changefeed, table or deletion (HTTP 404). */
  public static final int NOT_FOUND = 3;
  /** The changefeed's state does not allow it, or the id is in use (HTTP 409). */
  public static final int CONFLICT = 4;
  /** No valid credential (HTTP 401, gRPC UNAUTHENTICATED) or the principal may not do it (403, PERMISSION_DENIED). */
  public static final int DENIED = 5;

  /** The footer every client command's --help shows. */
  public static final String HELP = "%nExit codes: 0 ok, 1 server or connection error, 2 usage or invalid request,"
      + " 3 not found, 4 conflict (state does not allow it, or id in use), 5 not authenticated or not allowed"
      + " (docs/SECURITY.md).";

  private ExitCode() {}

  /** The exit code for an HTTP answer. */
  public static int ofStatus(int status) {
    if (status >= 200 && status < 300) {
      return OK;
    }
    return switch (status) {
      case 400, 405, 413 -> USAGE;
      case 404 -> NOT_FOUND;
      case 409 -> CONFLICT;
      case 401, 403 -> DENIED;
      default -> SERVER;
    };
  }
}
