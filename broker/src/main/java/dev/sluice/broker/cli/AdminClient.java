package dev.sluice.broker.cli;

import dev.sluice.dispatcher.ClientSecurity;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * A small blocking client of the admin HTTP API (JDK HTTP client), used by the {@code sluice} CLI
 * and by tests.
 *
 * <pre>{@code
 * AdminClient admin = AdminClient.of("http://127.0.0.1:8301");
 * AdminClient.Response r = admin.send("POST", "/api/v1/changefeeds/orders/pause", null);
 * if (r.status() == 409) System.err.println(r.json().getString("message"));
 * }</pre>
 */
public final class AdminClient {

  private final URI base;
  private final Duration timeout;
  private final HttpClient http;
  private final String authorization;

  private AdminClient(URI base, Duration timeout, ClientSecurity security) {
    this.base = base;
    this.timeout = timeout;
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1);
    if (base.getScheme().equals("https")) {
      b.sslContext(security.tls() ? PemSsl.context(security) : PemSsl.context(ClientSecurity.tls(null)));
    }
    this.http = b.build();
    this.authorization = security.authorization();
  }

  /** A client of the server at {@code baseUrl} ({@code http://host:port}) with a 30 s request timeout. */
  public static AdminClient of(String baseUrl) {
    return of(baseUrl, Duration.ofSeconds(30));
  }

  public static AdminClient of(String baseUrl, Duration timeout) {
    return of(baseUrl, timeout, ClientSecurity.none());
  }

  /**
   * A client of {@code baseUrl} ({@code http://} or {@code https://}) sending the token and trusting the
   * CA of {@code security}.
   */
  public static AdminClient of(String baseUrl, Duration timeout, ClientSecurity security) {
    URI uri = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
        || uri.getHost() == null) {
      throw new IllegalArgumentException("server must be an http://host:port or https://host:port URL, got \""
          + baseUrl + "\"");
    }
    if (uri.getScheme().equals("http") && security.tls()) {
      throw new IllegalArgumentException("TLS options were given but the server URL " + baseUrl + " is http://;"
          + " use https://");
    }
    return new AdminClient(uri, timeout, security);
  }

  /**
   * Sends {@code method pathAndQuery} with {@code body} (null for none) and returns the answer,
   * whatever its status.
   *
   * @throws AdminUnreachableException when the server cannot be reached or does not answer in time
   */
  public Response send(String method, String pathAndQuery, JsonObject body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(timeout);
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.encode()));
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.body(), r.headers().firstValue("Location"),
          r.headers().firstValue("Content-Type").orElse(""));
    } catch (javax.net.ssl.SSLException e) {
      throw new AdminUnreachableException("TLS with " + base + " failed: " + e.getMessage()
          + " (check --tls-ca, and --tls-cert/--tls-key when the server requires client certificates)", e);
    } catch (ConnectException e) {
      throw new AdminUnreachableException("cannot connect to " + base + " (is `sluice server` running there?)", e);
    } catch (IOException e) {
      throw new AdminUnreachableException("request to " + base + pathAndQuery + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminUnreachableException("interrupted while waiting for " + base, e);
    }
  }

  /**
   * One answer.
   *
   * @param status      the HTTP status
   * @param body        the body text ("" when none)
   * @param location    the Location header, when given
   * @param contentType the Content-Type header, "" when none
   */
  public record Response(int status, String body, Optional<String> location, String contentType) {

    /** The body as a JSON object (an empty one when there is no body). */
    public JsonObject json() {
      return body == null || body.isBlank() ? new JsonObject() : new JsonObject(body);
    }

    /**
     * Whether this looks like an answer of a Sluice admin API: a JSON object, an error with its
     * {@code code}, or an empty success (204, 202 without body).
     */
    public boolean isSluiceAnswer() {
      boolean ok = status >= 200 && status < 300;
      if (body == null || body.isBlank()) {
        return ok;
      }
      if (!contentType.startsWith("application/json")) {
        return false;
      }
      try {
        JsonObject o = new JsonObject(body);
        return ok || o.getValue("code") instanceof String;
      } catch (RuntimeException e) {
        return false;
      }
    }
  }

  /** The admin server could not be reached or did not answer. */
  public static final class AdminUnreachableException extends RuntimeException {
    public AdminUnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
