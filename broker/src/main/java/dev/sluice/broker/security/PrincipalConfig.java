package dev.sluice.broker.security;

import dev.sluice.dispatcher.changefeed.TableFilter;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;

/**
 * One configured principal: its name, roles, the tables its reader permissions reach, and the
 * credentials that stand for it: a stored token hash, a client certificate subject, a certificate SAN
 * (any of them; at least one).
 *
 * <pre>{@code
 * new PrincipalConfig("orders-app", Set.of(Role.READER), List.of("app.*"),
 *     TokenHash.parse("pbkdf2-sha256$600000$..."), null, null);
 * }</pre>
 *
 * @param name               1-64 of {@code [A-Za-z0-9_.@-]}; logged and audited
 * @param roles              at least one
 * @param tables             table patterns ({@code schema.table} globs, {@code !} excludes, as changefeed
 *                           include rules); null = every table. Only limits the reader permissions.
 * @param tokenHash          the stored hash of its bearer token, or null
 * @param certificateSubject the subject DN (RFC 2253) of a client certificate that stands for it, or null
 * @param certificateSan     a DNS, URI, IP or e-mail subject alternative name of such a certificate, or null
 */
public record PrincipalConfig(String name, Set<Role> roles, List<String> tables, TokenHash tokenHash,
    String certificateSubject, String certificateSan) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");

  public PrincipalConfig {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("principal name must be 1-64 of [A-Za-z0-9_.@-], got \"" + name + "\"");
    }
    if (roles == null || roles.isEmpty()) {
      throw new IllegalArgumentException("principal " + name + ": roles must name at least one of admin, operator,"
          + " reader, metrics");
    }
    roles = Set.copyOf(roles);
    tables = tables == null ? null : List.copyOf(tables);
    if (tables != null) {
      try {
        TableFilter.of(tables);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("principal " + name + ": tables: " + e.getMessage(), e);
      }
    }
    if (tokenHash == null && certificateSubject == null && certificateSan == null) {
      throw new IllegalArgumentException("principal " + name + " has no credential: give token_hash (from `sluice"
          + " token hash`), certificate_subject or certificate_san");
    }
    if (certificateSubject != null) {
      try {
        certificateSubject = canonicalSubject(certificateSubject);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("principal " + name + ": certificate_subject \"" + certificateSubject
            + "\" is not a distinguished name such as CN=orders-app,O=Example", e);
      }
    }
  }

  /** The principal requests of this configuration authenticate as. */
  public Principal principal() {
    return new Principal(name, roles, tables == null ? null : TableFilter.of(tables));
  }

  /** A DN in the one form compared: RFC 2253, canonical (case and spacing folded). */
  static String canonicalSubject(String dn) {
    return new X500Principal(dn).getName(X500Principal.CANONICAL);
  }

  @Override
  public String toString() {
    return "PrincipalConfig[name=" + name + ", roles=" + roles + ", tables=" + tables + ", token="
        + (tokenHash == null ? "none" : "hashed") + ", certificateSubject=" + certificateSubject + ", certificateSan="
        + certificateSan + "]";
  }
}
