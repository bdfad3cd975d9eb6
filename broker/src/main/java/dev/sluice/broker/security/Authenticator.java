package dev.sluice.broker.security;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.auth.x500.X500Principal;

/**
 * Turns {@link Credentials} into a {@link Principal}: a bearer token checked against every configured
 * token hash (PBKDF2, on a small pool of its own, never on an event loop), or, with mutual TLS and no
 * token, the verified client certificate's subject or SAN. With no principal configured every caller
 * is {@link Principal#ANONYMOUS}.
 *
 * <p>A token verified once is remembered by its SHA-256 (an hour; a wrong one a minute), so the slow
 * hash runs once per token and not per call. A token, once presented, is authoritative: a wrong token
 * is refused even when the certificate would stand for a principal.
 *
 * <pre>{@code
 * Authenticator auth = Authenticator.of(securityConfig.principals());
 * auth.authenticate(new Credentials("Bearer " + token, List.of(), "10.0.0.7:51234"))
 *     .thenAccept(p -> System.out.println(p.name()));     // or fails with AccessDeniedException
 * }</pre>
 */
public final class Authenticator implements AutoCloseable {

  /** Token verifications waiting for the pool beyond this are refused at once (a flood of wrong tokens). */
  static final int MAX_PENDING_VERIFICATIONS = 1_000;
  private static final String BEARER = "bearer ";

  private final List<PrincipalConfig> principals;
  private final List<InternalToken> internal = new ArrayList<>();
  private final ThreadPoolExecutor pool;
  private final AsyncCache<ByteBuffer, Optional<Principal>> verified;

  private record InternalToken(byte[] fingerprint, Principal principal) {}

  private Authenticator(List<PrincipalConfig> principals) {
    this.principals = List.copyOf(principals);
    AtomicInteger n = new AtomicInteger();
    this.pool = new ThreadPoolExecutor(1, 2, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(MAX_PENDING_VERIFICATIONS),
        r -> {
          Thread t = new Thread(r, "sluice-auth-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    this.verified = Caffeine.newBuilder().maximumSize(10_000).executor(Runnable::run)
        .expireAfter(Expiry.<ByteBuffer, Optional<Principal>>creating((k, v) ->
            v.isPresent() ? Duration.ofHours(1) : Duration.ofMinutes(1)))
        .buildAsync();
  }

  public static Authenticator of(List<PrincipalConfig> principals) {
    return new Authenticator(principals);
  }

  /** Callers must authenticate. */
  public boolean enabled() {
    return !principals.isEmpty();
  }

  /**
   * Accepts {@code token} as {@code principal} (the broker's own hosted changefeeds, with a random token
   * of this process). Call before serving.
   */
  public void addInternal(char[] token, Principal principal) {
    internal.add(new InternalToken(TokenHash.fingerprint(token), principal));
  }

  /** The principal behind {@code c}; fails with {@link AccessDeniedException} (UNAUTHENTICATED). */
  public CompletionStage<Principal> authenticate(Credentials c) {
    if (!enabled()) {
      return CompletableFuture.completedFuture(Principal.ANONYMOUS);
    }
    if (c.authorization() != null) {
      String header = c.authorization().strip();
      if (!header.toLowerCase(Locale.ROOT).startsWith(BEARER) || header.length() == BEARER.length()) {
        return failed("the authorization header must be \"Bearer <token>\"");
      }
      char[] token = header.substring(BEARER.length()).strip().toCharArray();
      return byToken(token).thenCompose(p -> p.<CompletionStage<Principal>>map(CompletableFuture::completedFuture)
          .orElseGet(() -> failed("the bearer token matches no principal of this broker; check the token, or ask an"
              + " admin to add its hash (sluice token hash) to the security config")));
    }
    if (!c.peerChain().isEmpty()) {
      X509Certificate leaf = c.peerChain().get(0);
      Optional<Principal> p = byCertificate(leaf);
      return p.<CompletionStage<Principal>>map(CompletableFuture::completedFuture).orElseGet(() -> failed(
          "the client certificate " + leaf.getSubjectX500Principal().getName() + " stands for no principal; send"
              + " authorization: Bearer <token>, or ask an admin to map its subject (certificate_subject) or a SAN"
              + " (certificate_san) to a principal"));
    }
    return failed("no credential: send the metadata/header \"authorization: Bearer <token>\""
        + " (sluice CLI: --token-file), or a client certificate mapped to a principal");
  }

  private CompletionStage<Optional<Principal>> byToken(char[] token) {
    byte[] fp = TokenHash.fingerprint(token);
    for (InternalToken t : internal) {
      if (MessageDigest.isEqual(t.fingerprint(), fp)) {
        return CompletableFuture.completedFuture(Optional.of(t.principal()));
      }
    }
    return verified.get(ByteBuffer.wrap(fp), (key, executor) -> {
      try {
        return CompletableFuture.supplyAsync(() -> verify(token), pool);
      } catch (RejectedExecutionException e) {
        return CompletableFuture.failedFuture(AccessDeniedException.unauthenticated(
            "the broker is verifying too many tokens at once; retry shortly"));
      }
    });
  }

  /** Runs the slow hash against every principal with a token; all of them, so the time tells nothing. */
  private Optional<Principal> verify(char[] token) {
    Principal found = null;
    for (PrincipalConfig p : principals) {
      if (p.tokenHash() != null && p.tokenHash().matches(token) && found == null) {
        found = p.principal();
      }
    }
    java.util.Arrays.fill(token, '\0');
    return Optional.ofNullable(found);
  }

  private Optional<Principal> byCertificate(X509Certificate leaf) {
    String subject = leaf.getSubjectX500Principal().getName(X500Principal.CANONICAL);
    List<String> sans = sans(leaf);
    for (PrincipalConfig p : principals) {
      if ((p.certificateSubject() != null && p.certificateSubject().equals(subject))
          || (p.certificateSan() != null && sans.contains(p.certificateSan()))) {
        return Optional.of(p.principal());
      }
    }
    return Optional.empty();
  }

  private static List<String> sans(X509Certificate c) {
    List<String> out = new ArrayList<>();
    try {
      if (c.getSubjectAlternativeNames() != null) {
        for (List<?> san : c.getSubjectAlternativeNames()) {
          if (san.size() >= 2 && san.get(1) instanceof String s) {
            out.add(s);
          }
        }
      }
    } catch (CertificateParsingException e) {
      // no usable SAN: the subject may still match
    }
    return out;
  }

  private static <T> CompletionStage<T> failed(String message) {
    return CompletableFuture.failedFuture(AccessDeniedException.unauthenticated(message));
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
