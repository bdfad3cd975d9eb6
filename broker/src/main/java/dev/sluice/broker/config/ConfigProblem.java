package dev.sluice.broker.config;

/**
 * One thing wrong with the configuration, for a person: the keys involved with their values and
 * sources, and what is wrong.
 *
 * <pre>{@code
 * serve.grpcPort = 70000 (/etc/sluice.yaml line 4): grpcPort must be in [0, 65535], got 70000
 * }</pre>
 *
 * @param keys    the keys at fault, each with its value and source ({@code key = value (source)}), or the
 *                unknown key and where it was given
 * @param message what is wrong and, where it helps, what to do
 */
public record ConfigProblem(String keys, String message) {

  @Override
  public String toString() {
    return keys + ": " + message;
  }
}
