package dev.sluice.broker.cli;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A client command that makes one admin API call: sends it, prints the answer (as JSON with
 * {@code --json}, else for a person), prints errors as {@code sluice: CODE: message} on stderr and
 * maps the outcome to an {@link ExitCode}. An answer that is not a Sluice admin API's (an HTML 404 of
 * another server on that port) says so and what was reached, exit 1. Everything printed passes the
 * {@link RedactingWriter}.
 */
abstract class AdminCall implements Callable<Integer> {

  @Mixin
  AdminOptions admin;

  @Spec
  CommandSpec spec;

  private PrintWriter out;
  private PrintWriter err;

  PrintWriter out() {
    if (out == null) {
      out = RedactingWriter.around(spec.commandLine().getOut());
    }
    return out;
  }

  PrintWriter err() {
    if (err == null) {
      err = RedactingWriter.around(spec.commandLine().getErr());
    }
    return err;
  }

  /** Sends the call; on 2xx prints the body with {@code human} (or as JSON), else the error. */
  int send(String method, String path, JsonObject body, Consumer<AdminClient.Response> human) {
    AdminClient.Response r;
    try {
      r = admin.client().send(method, path, body);
    } catch (IllegalArgumentException e) {
      err().println("sluice: " + e.getMessage());
      err().flush();
      return ExitCode.USAGE;
    } catch (AdminClient.AdminUnreachableException e) {
      err().println("sluice: " + e.getMessage());
      err().flush();
      return ExitCode.SERVER;
    }
    if (!r.isSluiceAnswer()) {
      return notSluice(method, path, r);
    }
    int code = ExitCode.ofStatus(r.status());
    if (code != ExitCode.OK) {
      JsonObject error = r.json();
      err().println("sluice: " + error.getString("code") + ": " + error.getString("message", ""));
      err().flush();
      if (admin.json && !r.body().isBlank()) {
        out().println(r.body().strip());
      }
    } else if (admin.json) {
      out().println(r.body().isBlank() ? "{}" : r.body().strip());
    } else {
      try {
        human.accept(r);
      } catch (RuntimeException e) {   // a JSON answer without the fields a Sluice answer has
        out().flush();
        return notSluice(method, path, r);
      }
    }
    out().flush();
    return code;
  }

  /** Says what was reached and that it is not a Sluice admin API. */
  private int notSluice(String method, String path, AdminClient.Response r) {
    String type = r.contentType().isBlank() ? "no content type" : r.contentType();
    err().println("sluice: " + admin.server + " answered " + method + " " + path + " with HTTP " + r.status() + " ("
        + type + "), which is not an answer of a Sluice admin API: check --server, the admin port of a broker"
        + " (default " + AdminOptions.DEFAULT_SERVER + "; GET / there names \"sluice\")");
    err().flush();
    return ExitCode.SERVER;
  }

  /** {@code r}'s body as JSON, for printers; a body that is not JSON fails like a missing field. */
  static JsonObject json(AdminClient.Response r) {
    try {
      return r.json();
    } catch (DecodeException e) {
      throw new IllegalStateException("not JSON", e);
    }
  }
}
