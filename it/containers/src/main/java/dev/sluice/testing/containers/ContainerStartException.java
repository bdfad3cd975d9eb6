package dev.sluice.testing.containers;

/**
 * A test container that did not start: its message names the image and alias, why, and the last lines the
 * server printed (its own error, e.g. PostgreSQL's "invalid value for parameter").
 */
public final class ContainerStartException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ContainerStartException(String message) {
    super(message);
  }

  public ContainerStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
