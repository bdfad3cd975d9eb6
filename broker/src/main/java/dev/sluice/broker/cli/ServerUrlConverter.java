package dev.sluice.broker.cli;

import java.net.URI;
import java.net.URISyntaxException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --server}: the admin API's base URL, {@code http://host:port} or {@code https://host:port} (a
 * path prefix is kept). Checked when the command line is parsed, so a bad value is a usage error
 * (exit 2) with the reason, not a stack trace.
 *
 * <pre>{@code
 * @Option(names = "--server", converter = ServerUrlConverter.class) URI server;
 * }</pre>
 */
public final class ServerUrlConverter implements ITypeConverter<URI> {

  @Override
  public URI convert(String value) {
    URI uri;
    try {
      uri = new URI(value.endsWith("/") ? value.substring(0, value.length() - 1) : value);
    } catch (URISyntaxException e) {
      throw invalid(value, e.getReason());
    }
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
      throw invalid(value, "it needs http:// or https://");
    }
    if (uri.getHost() == null || uri.getHost().isBlank()) {
      throw invalid(value, "it names no host");
    }
    if (uri.getQuery() != null || uri.getFragment() != null) {
      throw invalid(value, "it has a query or fragment");
    }
    return uri;
  }

  private static TypeConversionException invalid(String value, String why) {
    return new TypeConversionException("'" + value + "' is not the URL of a Sluice admin API (" + why + "); give"
        + " http://host:port, such as " + AdminOptions.DEFAULT_SERVER);
  }
}
