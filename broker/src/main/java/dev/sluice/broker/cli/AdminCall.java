package dev.sluice.broker.cli;

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
 * maps the outcome to an {@link ExitCode}.
 */
abstract class AdminCall implements Callable<Integer> {

  @Mixin
  AdminOptions admin;

  @Spec
  CommandSpec spec;

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /** Sends the call; on 2xx prints the body with {@code human} (or as JSON), else the error. */
  int send(String method, String path, JsonObject body, Consumer<AdminClient.Response> human) {
    AdminClient.Response r;
    try {
      r = admin.client().send(method, path, body);
    } catch (AdminClient.AdminUnreachableException e) {
      err().println("sluice: " + e.getMessage());
      err().flush();
      return ExitCode.SERVER;
    }
    int code = ExitCode.ofStatus(r.status());
    if (code != ExitCode.OK) {
      JsonObject error = r.contentType().startsWith("application/json") ? r.json() : new JsonObject();
      err().println("sluice: " + error.getString("code", "HTTP_" + r.status()) + ": "
          + error.getString("message", r.body()));
      err().flush();
      if (admin.json && !r.body().isBlank()) {
        out().println(r.body().strip());
      }
    } else if (admin.json) {
      out().println(r.body().isBlank() ? "{}" : r.body().strip());
    } else {
      human.accept(r);
    }
    out().flush();
    return code;
  }
}
