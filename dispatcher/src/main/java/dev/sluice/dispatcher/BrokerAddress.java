package dev.sluice.dispatcher;

/**
 * A broker's gRPC address {@code host:port}.
 *
 * <pre>{@code
 * BrokerAddress a = BrokerAddress.parse("127.0.0.1:8300");
 * }</pre>
 *
 * @param host host name or IP literal (IPv6 without brackets)
 * @param port TCP port in [1, 65535]
 */
public record BrokerAddress(String host, int port) {

  /** Checks the host is given and the port in range. */
  public BrokerAddress {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("broker host must not be blank");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("broker port must be in [1, 65535], got " + port);
    }
  }

  /** Parses {@code host:port} or {@code [v6]:port}, naming the input when it is not one. */
  public static BrokerAddress parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("broker address must be host:port, got null");
    }
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("broker address must be host:port, got \"" + text + "\"");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return new BrokerAddress(host, Integer.parseInt(text.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("broker address must be host:port, got \"" + text + "\"", e);
    }
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
