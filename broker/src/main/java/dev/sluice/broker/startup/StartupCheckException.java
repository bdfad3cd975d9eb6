package dev.sluice.broker.startup;

/**
 * The broker cannot start as configured, found before anything was created (no store written, no
 * replication slot made): the message names what is wrong (the port, the path), the setting that
 * chose it and what to do. {@code sluice server} prints it and exits 1.
 *
 * <pre>{@code
 * throw new StartupCheckException("admin port 8301 on 127.0.0.1 is already in use ...");
 * }</pre>
 */
public final class StartupCheckException extends IllegalStateException {

  public StartupCheckException(String message) {
    super(message);
  }

  public StartupCheckException(String message, Throwable cause) {
    super(message, cause);
  }
}
