package dev.sluice.broker.cli;

import dev.sluice.broker.security.TokenHash;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice token hash}: reads a bearer token from stdin (its first line) and prints the stored form
 * the security config takes as a principal's {@code token_hash}. The token itself is never printed and
 * never taken as an argument (where {@code ps} and shell history would keep it).
 *
 * <pre>{@code
 * head -c 32 /dev/urandom | base64 | tr -d '=+/' > orders-app.token
 * sluice token hash < orders-app.token          # pbkdf2-sha256$600000$<salt>$<hash>
 * }</pre>
 */
@Command(name = "token", mixinStandardHelpOptions = true, description = "Bearer token tools (docs/SECURITY.md).",
    subcommands = TokenCommand.Hash.class)
public final class TokenCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code sluice token hash}. */
  @Command(name = "hash", mixinStandardHelpOptions = true,
      description = "Read a token from stdin (first line) and print its salted PBKDF2-HMAC-SHA256 hash, the"
          + " token_hash of a principal in the security config. The token is not echoed.",
      footer = "%nExit codes: 0 ok, 2 no token on stdin or a bad option.")
  public static final class Hash implements Callable<Integer> {

    /** Tokens shorter than this are refused: a bearer token is not a password to remember. */
    static final int MIN_TOKEN_LENGTH = 16;

    @Option(names = "--iterations", defaultValue = "" + TokenHash.DEFAULT_ITERATIONS,
        description = "PBKDF2 iterations, at least " + TokenHash.MIN_ITERATIONS + " (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Spec
    CommandSpec spec;

    InputStream in = System.in;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      char[] token;
      try {
        token = firstLine(in);
      } catch (IOException e) {
        err.println("sluice token hash: cannot read stdin: " + e.getMessage());
        err.flush();
        return ExitCode.USAGE;
      }
      try {
        if (token.length < MIN_TOKEN_LENGTH) {
          err.println("sluice token hash: the token on stdin has " + token.length + " characters; use at least "
              + MIN_TOKEN_LENGTH + " random ones (e.g. head -c 32 /dev/urandom | base64)");
          err.flush();
          return ExitCode.USAGE;
        }
        if (iterations < TokenHash.MIN_ITERATIONS) {
          err.println("sluice token hash: --iterations must be at least " + TokenHash.MIN_ITERATIONS + ", got "
              + iterations);
          err.flush();
          return ExitCode.USAGE;
        }
        out.println(TokenHash.of(token, iterations));
        out.flush();
        return ExitCode.OK;
      } finally {
        Arrays.fill(token, '\0');
      }
    }

    private static char[] firstLine(InputStream in) throws IOException {
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      StringBuilder b = new StringBuilder();
      int c;
      while ((c = r.read()) >= 0 && c != '\n') {
        if (c != '\r') {
          b.append((char) c);
        }
      }
      char[] out = b.toString().strip().toCharArray();
      b.setLength(0);
      return out;
    }
  }
}
