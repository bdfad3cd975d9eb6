package dev.sluice.broker.security;

import dev.sluice.dispatcher.ClientSecurity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * How a node's hosted changefeeds dial brokers (this node, or the others they name or fail over to):
 * TLS when the node serves TLS, trusting {@code changefeeds.ca} (default: the node's own certificate
 * chain), presenting the node's certificate when it requires client certificates, and a token: the
 * one in {@code changefeeds.token_file}, or else a random token of this process that stands for the
 * principal {@value #INTERNAL_NAME} (a reader of every table) on this node only.
 *
 * <pre>{@code
 * ClientSecurity s = ChangefeedCredentials.of(securityConfig, authenticator);
 * }</pre>
 */
public final class ChangefeedCredentials {

  /** The principal of the broker's own hosted changefeeds when no token file is configured. */
  public static final String INTERNAL_NAME = "sluice-changefeeds";
  private static final SecureRandom RANDOM = new SecureRandom();

  private ChangefeedCredentials() {}

  /**
   * The client security of hosted changefeeds; registers the internal token with {@code auth} when one
   * is minted.
   *
   * @throws IllegalArgumentException when the token file cannot be read or is empty
   */
  public static ClientSecurity of(SecurityConfig s, Authenticator auth) {
    ClientSecurity c = ClientSecurity.none();
    if (s.tlsEnabled()) {
      c = ClientSecurity.tls(s.changefeedCaFile() != null ? s.changefeedCaFile() : s.tls().certFile());
      if (s.tls().mutual()) {
        c = c.withClientCertificate(s.tls().certFile(), s.tls().keyFile());
      }
    }
    if (!auth.enabled()) {
      return c;
    }
    if (s.changefeedTokenFile() != null) {
      return c.withToken(readToken(s.changefeedTokenFile()));
    }
    byte[] raw = new byte[32];
    RANDOM.nextBytes(raw);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    auth.addInternal(token.toCharArray(), new Principal(INTERNAL_NAME, Set.of(Role.READER), null));
    return c.withToken(token);
  }

  /** The first line of {@code file}, stripped; the message never holds the content. */
  public static String readToken(Path file) {
    String token;
    try {
      token = Files.readString(file).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the token file " + file + ": " + e.getClass().getSimpleName(), e);
    }
    int nl = token.indexOf('\n');
    if (nl >= 0) {
      token = token.substring(0, nl).strip();
    }
    if (token.isEmpty()) {
      throw new IllegalArgumentException("the token file " + file + " is empty");
    }
    return token;
  }
}
