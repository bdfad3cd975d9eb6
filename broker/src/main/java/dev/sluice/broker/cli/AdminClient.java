package dev.sluice.broker.cli;

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

  private AdminClient(URI base, Duration timeout) {
    this.base = base;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
  }

  /** A client of the server at {@code baseUrl} ({@code http://host:port}) with a 30 s request timeout. */
  public static AdminClient of(String baseUrl) {
    return of(baseUrl, Duration.ofSeconds(30));
  }

  public static AdminClient of(String baseUrl, Duration timeout) {
    URI uri = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
    if (uri.getScheme() == null || !uri.getScheme().startsWith("http") || uri.getHost() == null) {
      throw new IllegalArgumentException("server must be an http://host:port URL, got \"" + baseUrl + "\"");
    }
    return new AdminClient(uri, timeout);
  }

  /**
   * Sends {@code method pathAndQuery} with {@code body} (null for none) and returns the answer,
   * whatever its status.
   *
   * @throws AdminUnreachableException when the server cannot be reached or does not answer in time
   */
  public Response send(String method, String pathAndQuery, JsonObject body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(timeout);
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.encode()));
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.body(), r.headers().firstValue("Location"),
          r.headers().firstValue("Content-Type").orElse(""));
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
  }

  /** The admin server could not be reached or did not answer. */
  public static final class AdminUnreachableException extends RuntimeException {
    public AdminUnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
