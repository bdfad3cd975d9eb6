package dev.sluice.broker.config;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * The known key closest to a misspelt one, for a "did you mean" (edit distance, or the same last
 * segment in another section, or the same letters in another case).
 *
 * <pre>{@code
 * KeySuggestion.closest("capture.heartbeatIntervall", keys);   // Optional[capture.heartbeatInterval]
 * KeySuggestion.closest("grpcPort", keys);                     // Optional[serve.grpcPort]
 * }</pre>
 */
final class KeySuggestion {

  private KeySuggestion() {}

  static Optional<String> closest(String unknown, Collection<String> known) {
    String lower = unknown.toLowerCase(Locale.ROOT);
    String leaf = unknown.substring(unknown.lastIndexOf('.') + 1);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      if (k.toLowerCase(Locale.ROOT).equals(lower) || k.endsWith("." + leaf) && !leaf.isEmpty()) {
        return Optional.of(k);
      }
      int d = distance(lower, k.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    return bestDistance <= Math.max(2, unknown.length() / 4) ? Optional.ofNullable(best) : Optional.empty();
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
