package dev.sluice.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The stored form of a token: PBKDF2 with its own salt and count, parsed strictly, never echoing a value. */
class TokenHashTest {

  private static final int FAST = TokenHash.MIN_ITERATIONS;

  @Test
  void aTokenMatchesItsOwnHashOnlyAndSurvivesTheStoredForm() {
    TokenHash h = TokenHash.of("correct-horse-battery".toCharArray(), FAST);
    TokenHash parsed = TokenHash.parse(h.toString());
    assertThat(parsed).isEqualTo(h);
    assertThat(parsed.matches("correct-horse-battery".toCharArray())).isTrue();
    assertThat(parsed.matches("correct-horse-batterY".toCharArray())).isFalse();
    assertThat(parsed.matches("".toCharArray())).isFalse();
    assertThat(h.toString()).startsWith("pbkdf2-sha256$1000$").doesNotContain("correct-horse");
  }

  @Test
  void twoHashesOfOneTokenDifferBySalt() {
    TokenHash a = TokenHash.of("same-token-same-token".toCharArray(), FAST);
    TokenHash b = TokenHash.of("same-token-same-token".toCharArray(), FAST);
    assertThat(a.toString()).isNotEqualTo(b.toString());
    assertThat(b.matches("same-token-same-token".toCharArray())).isTrue();
  }

  @Test
  void theDefaultIsTheOwaspCount() {
    assertThat(TokenHash.DEFAULT_ITERATIONS).isEqualTo(600_000);
  }

  @Test
  void badStoredFormsAreRefusedWithoutRepeatingTheValue() {
    String pastedToken = "s3cr3t-pasted-instead-of-its-hash";
    assertThatThrownBy(() -> TokenHash.parse(pastedToken)).hasMessageContaining("sluice token hash")
        .hasMessageNotContaining(pastedToken);
    assertThatThrownBy(() -> TokenHash.parse("pbkdf2-sha256$ten$AAAAAAAAAAA$AAAA")).hasMessageContaining("iterations");
    assertThatThrownBy(() -> TokenHash.parse("pbkdf2-sha256$10$AAAAAAAAAAAAAAAAAAAAAA$"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).hasMessageContaining(">= 1000");
    assertThatThrownBy(() -> TokenHash.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
