package dev.sluice.api.secret;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place that knows how credentials look in text, applied wherever text leaves Sluice: admin
 * API answers, CLI output, log lines, metrics, and the messages of every {@code SluiceException}
 * (hence status pages and persisted errors). It replaces the secret with {@value #MASK} and keeps the
 * rest, so the text still says which target, user and host it is about.
 *
 * <p>Forms it knows (case-insensitive):
 * <ul>
 *   <li>{@code key=value} where the key names a secret: JDBC URL query parameters and driver
 *       properties ({@code password}, {@code sslpassword}, {@code trustStorePassword}, MySQL's
 *       {@code password1..3}, PostgreSQL conninfo {@code password=...}), Kafka and JAAS properties
 *       ({@code sasl.jaas.config=... password="..."}, {@code ssl.key.password}), and anything named
 *       {@code *secret*}, {@code *token*}, {@code api_key}/{@code apikey}, {@code access_key}; the value ends
 *       at {@code &}, white space, a quote or {@code <>}; a quoted value (also JSON-escaped) is masked whole;
 *   <li>{@code scheme://user:password@host}: the password of a URL's authority;
 *   <li>{@code "password": "..."} and the other secret keys as JSON fields;
 *   <li>a bearer token: after {@code authorization: bearer}, or after {@code Bearer} when it is no plain word
 *       (8 characters or more, a digit or symbol among them), so prose about "the bearer token" stays.
 * </ul>
 * A value that uses a terminator unencoded (a {@code &} inside a URL password) is cut there, as the URL's own
 * parser cuts it; percent-encode such characters. Redaction is idempotent and leaves JSON text valid.
 *
 * <pre>{@code
 * Redactor.redact("jdbc:postgresql://db/warehouse?user=app&password=secret");
 * // "jdbc:postgresql://db/warehouse?user=app&password=***"
 * log.atWarn().setCause(Redactor.scrub(driverError)).log("...");
 * }</pre>
 */
public final class Redactor {

  /** What a secret is replaced with. */
  public static final String MASK = "***";

  private static final String SECRET_KEY =
      "[\\w.-]*(?:password|passwd|pwd|secret|token|api_?key|access_?key|credentials?)[\\w.-]*";
  /** {@code key=value}: a JSON-escaped quoted value, a quoted one, or a bare one. */
  private static final Pattern KEY_VALUE = Pattern.compile("(?i)((?<![\\w.-])" + SECRET_KEY
      + "\\s*=\\s*)(\\\\\"(?:[^\"\\\\]|\\\\[^\"])*\\\\\"|\"[^\"]*\"|'[^']*'|[^&\\s\"'<>\\\\]+)");
  /** {@code "key": "value"} in JSON text. */
  private static final Pattern JSON_FIELD = Pattern.compile("(?i)(\"" + SECRET_KEY
      + "\"\\s*:\\s*)\"(?:[^\"\\\\]|\\\\.)*\"");
  /** {@code scheme://user:password@}. */
  private static final Pattern USER_INFO = Pattern.compile("(?i)([a-z][a-z0-9+.-]*://[^/@:\\s\"'<>]*:)"
      + "([^/@\\s\"'<>]*)@");
  /** An authorization header's bearer token, or {@code Bearer <token>} where the token is no plain word. */
  private static final Pattern BEARER = Pattern.compile("(?i:(authorization\\s*[:=]\\s*\"?bearer\\s+))"
      + "[A-Za-z0-9._~+/=-]+|(\\bBearer\\s+)(?=[A-Za-z._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}");
  /** Literal secrets shorter than this are not searched for in text. */
  public static final int MIN_LITERAL = 4;
  /** Causes and suppressed exceptions looked at below a throwable (a chain longer than this is cut). */
  private static final int MAX_DEPTH = 32;

  private Redactor() {}

  /** {@code text} with every secret it shows replaced by {@value #MASK}; null stays null. */
  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = KEY_VALUE.matcher(text).replaceAll(Redactor::maskValue);
    out = JSON_FIELD.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + "\"" + MASK + "\""));
    out = USER_INFO.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + MASK + "@"));
    return BEARER.matcher(out).replaceAll(m -> Matcher.quoteReplacement((m.group(1) != null ? m.group(1) : m.group(2))
        + MASK));
  }

  /**
   * {@link #redact(String)}, and every occurrence of one of {@code literals} (the secrets a URL holds,
   * {@link #secretsIn}) masked too, wherever it shows: for a driver's message that echoes a password
   * in a form of its own ("Incorrect port value : pw@host"). Literals shorter than
   * {@value #MIN_LITERAL} characters are not searched for (they would mask ordinary text).
   */
  public static String redact(String text, Collection<String> literals) {
    String out = redact(text);
    if (out == null || literals.isEmpty()) {
      return out;
    }
    for (String secret : literals) {
      if (secret != null && secret.length() >= MIN_LITERAL && !secret.equals(MASK)) {
        out = out.replace(secret, MASK);
      }
    }
    return out;
  }

  /**
   * The secret values {@code text} holds in the forms this class knows, as written and percent-decoded:
   * what {@link #redact(String, Collection)} and {@link #scrub(Throwable, Collection)}
   * look for in the messages of whatever used it.
   */
  public static Set<String> secretsIn(String text) {
    Set<String> out = new LinkedHashSet<>();
    if (text == null) {
      return out;
    }
    for (Matcher m = KEY_VALUE.matcher(text); m.find(); ) {
      addSecret(out, unquote(m.group(2)));
    }
    for (Matcher m = USER_INFO.matcher(text); m.find(); ) {
      addSecret(out, m.group(2));
    }
    for (Matcher m = JSON_FIELD.matcher(text); m.find(); ) {
      String field = m.group();
      addSecret(out, unquote(field.substring(m.group(1).length())));
    }
    return out;
  }

  private static void addSecret(Set<String> out, String value) {
    if (value == null || value.isEmpty()) {
      return;
    }
    out.add(value);
    try {
      out.add(URLDecoder.decode(value, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      // not percent-encoded after all: the value as written is enough
    }
  }

  private static String unquote(String v) {
    if (v.startsWith("\\\"") && v.endsWith("\\\"") && v.length() >= 4) {
      return v.substring(2, v.length() - 2);
    }
    if ((v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'")) && v.length() >= 2) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }

  /** Whether {@code text} shows a secret in one of the forms this class knows. */
  public static boolean showsSecret(String text) {
    return text != null && !text.equals(redact(text));
  }

  private static String maskValue(MatchResult m) {
    String v = m.group(2);
    String masked = v.startsWith("\\\"") ? "\\\"" + MASK + "\\\"" : v.startsWith("\"") ? "\"" + MASK + "\""
        : v.startsWith("'") ? "'" + MASK + "'" : MASK;
    return Matcher.quoteReplacement(m.group(1) + masked);
  }

  /**
   * {@code error} itself when neither it nor any of its causes and suppressed exceptions shows a
   * secret in its message; otherwise a copy of the chain as {@link RedactedException}s (same stack
   * traces, the original class named in each message, secrets masked). For logging and for the
   * cause of an error that leaves the process; code that inspects a cause's type must do so before.
   */
  public static Throwable scrub(Throwable error) {
    return scrub(error, Set.of());
  }

  /** {@link #scrub(Throwable)} that also masks {@code literals} ({@link #redact(String, Collection)}). */
  public static Throwable scrub(Throwable error, Collection<String> literals) {
    if (error == null || !showsSecret(error, literals, new IdentityHashMap<>(), 0)) {
      return error;
    }
    return copy(error, literals, new IdentityHashMap<>(), 0);
  }

  private static boolean showsSecret(Throwable t, Collection<String> literals, Map<Throwable, Boolean> seen,
      int depth) {
    if (t == null || depth > MAX_DEPTH || seen.put(t, Boolean.TRUE) != null) {
      return false;
    }
    String m = t.getMessage();
    if (m != null && !m.equals(redact(m, literals))) {
      return true;
    }
    for (Throwable s : t.getSuppressed()) {
      if (showsSecret(s, literals, seen, depth + 1)) {
        return true;
      }
    }
    return showsSecret(t.getCause(), literals, seen, depth + 1);
  }

  private static Throwable copy(Throwable t, Collection<String> literals, Map<Throwable, Throwable> copies,
      int depth) {
    if (t == null || depth > MAX_DEPTH) {
      return null;
    }
    Throwable done = copies.get(t);
    if (done != null) {
      return done;
    }
    RedactedException c = new RedactedException(t, literals);
    copies.put(t, c);
    Throwable cause = t.getCause();
    if (cause != null && cause != t) {
      c.initCause(copy(cause, literals, copies, depth + 1));
    }
    for (Throwable s : t.getSuppressed()) {
      Throwable sc = copy(s, literals, copies, depth + 1);
      if (sc != null && sc != c) {
        c.addSuppressed(sc);
      }
    }
    return c;
  }
}
