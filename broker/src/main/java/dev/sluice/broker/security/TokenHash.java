package dev.sluice.broker.security;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * The stored form of a bearer token: a PBKDF2-HMAC-SHA256 hash with its own salt and iteration count,
 * {@code pbkdf2-sha256$<iterations>$<salt, base64>$<hash, base64>}. The server keeps only this form;
 * {@link #matches} recomputes the hash and compares in constant time.
 *
 * <pre>{@code
 * TokenHash stored = TokenHash.of("s3cr3t-token".toCharArray());   // what `sluice token hash` prints
 * String text = stored.toString();                                   // goes into the security config
 * TokenHash.parse(text).matches("s3cr3t-token".toCharArray());       // true
 * }</pre>
 *
 * @param iterations PBKDF2 iterations (at least {@value #MIN_ITERATIONS})
 * @param salt       the per-token salt ({@value #SALT_BYTES} bytes when made here)
 * @param hash       the derived key ({@value #HASH_BYTES} bytes)
 */
public record TokenHash(int iterations, byte[] salt, byte[] hash) {

  public static final String SCHEME = "pbkdf2-sha256";
  /** The OWASP figure for PBKDF2-HMAC-SHA256 (2023). */
  public static final int DEFAULT_ITERATIONS = 600_000;
  /** Below this a stored hash is refused: too cheap to guess. Tests use it to stay fast. */
  public static final int MIN_ITERATIONS = 1_000;
  static final int SALT_BYTES = 16;
  static final int HASH_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  public TokenHash {
    if (iterations < MIN_ITERATIONS) {
      throw new IllegalArgumentException("token hash iterations must be >= " + MIN_ITERATIONS + ", got " + iterations);
    }
    if (salt == null || salt.length < 8) {
      throw new IllegalArgumentException("token hash salt must be at least 8 bytes");
    }
    if (hash == null || hash.length != HASH_BYTES) {
      throw new IllegalArgumentException("token hash must be " + HASH_BYTES + " bytes");
    }
    salt = salt.clone();
    hash = hash.clone();
  }

  /** Hashes {@code token} with a fresh salt and {@value #DEFAULT_ITERATIONS} iterations. */
  public static TokenHash of(char[] token) {
    return of(token, DEFAULT_ITERATIONS);
  }

  public static TokenHash of(char[] token, int iterations) {
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    return new TokenHash(iterations, salt, derive(token, salt, iterations));
  }

  /**
   * Parses the stored form; the message names what is wrong but never repeats the value (it may be a
   * token pasted by mistake).
   */
  public static TokenHash parse(String stored) {
    String[] parts = stored == null ? new String[0] : stored.split("\\$", -1);
    if (parts.length != 4 || !parts[0].equals(SCHEME)) {
      throw new IllegalArgumentException("a token hash must look like " + SCHEME
          + "$<iterations>$<salt>$<hash> (made by `sluice token hash`); this one does not (value not shown)");
    }
    try {
      return new TokenHash(Integer.parseInt(parts[1]), Base64.getDecoder().decode(parts[2]),
          Base64.getDecoder().decode(parts[3]));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("a token hash has a bad iteration count, salt or hash: "
          + (e instanceof NumberFormatException ? "iterations is not a number" : e.getMessage()), null);
    }
  }

  /** Whether {@code token} hashes to this; constant time in the hash comparison. */
  public boolean matches(char[] token) {
    return MessageDigest.isEqual(hash, derive(token, salt, iterations));
  }

  /** A fast digest of a presented token: the key of the verified-token cache (never logged either). */
  static byte[] fingerprint(char[] token) {
    try {
      ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(token));
      byte[] b = new byte[bytes.remaining()];
      bytes.get(b);
      byte[] d = MessageDigest.getInstance("SHA-256").digest(b);
      Arrays.fill(b, (byte) 0);
      return d;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  private static byte[] derive(char[] token, byte[] salt, int iterations) {
    PBEKeySpec spec = new PBEKeySpec(token, salt, iterations, HASH_BYTES * 8);
    try {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("PBKDF2WithHmacSHA256 is missing from this JDK", e);
    } finally {
      spec.clearPassword();
    }
  }

  /** The stored form. */
  @Override
  public String toString() {
    return SCHEME + "$" + iterations + "$" + Base64.getEncoder().withoutPadding().encodeToString(salt) + "$"
        + Base64.getEncoder().withoutPadding().encodeToString(hash);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TokenHash t && t.iterations == iterations && Arrays.equals(t.salt, salt)
        && Arrays.equals(t.hash, hash);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hash);
  }
}
