package dev.sluice.broker.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** PROTOCOL.md's request table, row by row: every (state, request kind) pair has one expected decision. */
class ControlRulesTest {

  /** state | request kind | decision (status(code) -> effect) | why. */
  private static final String TABLE = """
      UNKNOWN    | REGISTER_SAME           | ACCEPTED -> REGISTER     | a new dispatcher is validated and registered
      UNKNOWN    | REGISTER_DIFFERENT      | ACCEPTED -> REGISTER     | nothing to differ from
      UNKNOWN    | REGISTER_POSITIVE_EPOCH | REJECTED(BAD_EPOCH)      | streams only start by RESET
      UNKNOWN    | RESET_NEWER             | NOT_FOUND                | collector re-registers
      UNKNOWN    | RESET_NOT_NEWER         | NOT_FOUND                | collector re-registers
      UNKNOWN    | REMOVE_CURRENT_OR_NEWER | NOT_FOUND                | nothing to remove
      UNKNOWN    | REMOVE_OLDER            | NOT_FOUND                | nothing to remove
      TOMBSTONED | REGISTER_SAME           | STALE                    | a late REGISTER of a removed dispatcher
      TOMBSTONED | REGISTER_DIFFERENT      | STALE                    | a late REGISTER of a removed dispatcher
      TOMBSTONED | REGISTER_POSITIVE_EPOCH | REJECTED(BAD_EPOCH)      | streams only start by RESET
      TOMBSTONED | RESET_NEWER             | NOT_FOUND                | above the removed epoch: unknown
      TOMBSTONED | RESET_NOT_NEWER         | STALE                    | a late RESET of the removed epoch
      TOMBSTONED | REMOVE_CURRENT_OR_NEWER | NOT_FOUND                | already removed
      TOMBSTONED | REMOVE_OLDER            | NOT_FOUND                | already removed
      KNOWN      | REGISTER_SAME           | ACCEPTED -> RESEND_READY | idempotent re-register
      KNOWN      | REGISTER_DIFFERENT      | REJECTED(ID_IN_USE)      | conflicting re-register
      KNOWN      | REGISTER_POSITIVE_EPOCH | REJECTED(BAD_EPOCH)      | streams only start by RESET
      KNOWN      | RESET_NEWER             | ACCEPTED -> RESET_EPOCH  | handshake with table info, then scan
      KNOWN      | RESET_NOT_NEWER         | STALE                    | a reset that lost a race
      KNOWN      | REMOVE_CURRENT_OR_NEWER | ACCEPTED -> REMOVE       | drop state, keep a tombstone
      KNOWN      | REMOVE_OLDER            | STALE                    | a remove of an epoch already replaced
      KNOWN_ELSEWHERE | REGISTER_SAME           | ACCEPTED -> TAKE_OVER | the collector reconnected first
      KNOWN_ELSEWHERE | REGISTER_DIFFERENT      | ACCEPTED -> TAKE_OVER | re-registered from its checkpoint
      KNOWN_ELSEWHERE | REGISTER_POSITIVE_EPOCH | REJECTED(BAD_EPOCH)   | streams only start by RESET
      KNOWN_ELSEWHERE | RESET_NEWER             | NOT_FOUND             | REGISTER on this stream first
      KNOWN_ELSEWHERE | RESET_NOT_NEWER         | NOT_FOUND             | REGISTER on this stream first
      KNOWN_ELSEWHERE | REMOVE_CURRENT_OR_NEWER | ACCEPTED -> REMOVE    | removal by id from any stream
      KNOWN_ELSEWHERE | REMOVE_OLDER            | STALE                 | a remove of an epoch already replaced
      """;

  /**
   * The reason of every request the rules answer without an effect, for an id at epoch 2 (removed at epoch 2
   * when TOMBSTONED) and a request epoch that fits its kind: REGISTER 0 (3 with a positive epoch), RESET 3
   * when newer and 2 when not, REMOVE 2 when current, 1 when older.
   */
  private static final String REASONS = """
      UNKNOWN    | REGISTER_POSITIVE_EPOCH | REGISTER must carry epoch 0, got 3; streams start only by RESET with epoch > 0
      UNKNOWN    | RESET_NEWER             | no dispatcher with this id is registered; REGISTER it first
      UNKNOWN    | RESET_NOT_NEWER         | no dispatcher with this id is registered; REGISTER it first
      UNKNOWN    | REMOVE_CURRENT_OR_NEWER | no dispatcher with this id is registered; nothing to remove
      UNKNOWN    | REMOVE_OLDER            | no dispatcher with this id is registered; nothing to remove
      TOMBSTONED | REGISTER_SAME           | this dispatcher id was removed at epoch 2 a short while ago; use a new dispatcher id
      TOMBSTONED | REGISTER_DIFFERENT      | this dispatcher id was removed at epoch 2 a short while ago; use a new dispatcher id
      TOMBSTONED | REGISTER_POSITIVE_EPOCH | REGISTER must carry epoch 0, got 3; streams start only by RESET with epoch > 0
      TOMBSTONED | RESET_NEWER             | no dispatcher with this id is registered (it was removed at epoch 2); REGISTER it first
      TOMBSTONED | RESET_NOT_NEWER         | epoch 2 is not above epoch 2, at which this dispatcher was removed; use a new dispatcher id
      TOMBSTONED | REMOVE_CURRENT_OR_NEWER | this dispatcher was already removed at epoch 2
      TOMBSTONED | REMOVE_OLDER            | this dispatcher was already removed at epoch 2
      KNOWN      | REGISTER_DIFFERENT      | the dispatcher id is registered with another span, start ts or options; remove it first or use a new id
      KNOWN      | REGISTER_POSITIVE_EPOCH | REGISTER must carry epoch 0, got 3; streams start only by RESET with epoch > 0
      KNOWN      | RESET_NOT_NEWER         | epoch 2 is not above the current epoch 2; a RESET must carry a higher epoch
      KNOWN      | REMOVE_OLDER            | epoch 1 is below the current epoch 2; a REMOVE must carry the current epoch or a later one
      KNOWN_ELSEWHERE | REGISTER_POSITIVE_EPOCH | REGISTER must carry epoch 0, got 3; streams start only by RESET with epoch > 0
      KNOWN_ELSEWHERE | RESET_NEWER             | the dispatcher is registered on another stream; REGISTER it on this stream first
      KNOWN_ELSEWHERE | RESET_NOT_NEWER         | the dispatcher is registered on another stream; REGISTER it on this stream first
      KNOWN_ELSEWHERE | REMOVE_OLDER            | epoch 1 is below the current epoch 2; a REMOVE must carry the current epoch or a later one
      """;

  static Stream<Arguments> everyReason() {
    Map<String, String> rows = new HashMap<>();
    for (String line : REASONS.strip().split("\n")) {
      String[] cols = line.split("\\|");
      rows.put(cols[0].strip() + "/" + cols[1].strip(), cols[2].strip());
    }
    List<Arguments> out = new ArrayList<>();
    for (EntryState s : EnumSet.allOf(EntryState.class)) {
      for (RequestKind k : EnumSet.allOf(RequestKind.class)) {
        boolean answeredByRules = ControlRules.decide(s, k).effect().isEmpty();
        out.add(Arguments.of(s, k, answeredByRules ? rows.getOrDefault(s + "/" + k, "MISSING FROM TABLE") : ""));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} + {1}: {2}")
  @MethodSource("everyReason")
  void everyRefusalSaysWhyInTheWordsOfItsRow(EntryState state, RequestKind kind, String expected) {
    long requestEpoch = switch (kind) {
      case REGISTER_SAME, REGISTER_DIFFERENT -> 0;
      case REGISTER_POSITIVE_EPOCH, RESET_NEWER -> 3;
      case RESET_NOT_NEWER, REMOVE_CURRENT_OR_NEWER -> 2;
      case REMOVE_OLDER -> 1;
    };
    assertThat(ControlRules.reason(state, kind, requestEpoch, 2)).isEqualTo(expected);
  }

  @Test
  void reasonTableHasOneRowPerRefusal() {
    long refusals = everyPair().filter(a -> !a.get()[2].toString().contains("->")).count();
    assertThat(REASONS.strip().lines().count()).isEqualTo(refusals);
  }

  static Stream<Arguments> everyPair() {
    Map<String, String[]> rows = new HashMap<>();
    for (String line : TABLE.strip().split("\n")) {
      String[] cols = line.split("\\|");
      rows.put(cols[0].strip() + "/" + cols[1].strip(), new String[] {cols[2].strip(), cols[3].strip()});
    }
    List<Arguments> out = new ArrayList<>();
    for (EntryState s : EnumSet.allOf(EntryState.class)) {
      for (RequestKind k : EnumSet.allOf(RequestKind.class)) {
        String[] row = rows.get(s + "/" + k);
        out.add(Arguments.of(s, k, row == null ? "MISSING FROM TABLE" : row[0], row == null ? "" : row[1]));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} + {1} -> {2} ({3})")
  @MethodSource("everyPair")
  void decisionFollowsTheProtocolTable(EntryState state, RequestKind kind, String expected, String why) {
    assertThat(ControlRules.decide(state, kind).toString()).as(why).isEqualTo(expected);
  }

  @Test
  void tableHasOneRowPerPair() {
    long rows = TABLE.strip().lines().count();
    assertThat(rows).isEqualTo((long) EntryState.values().length * RequestKind.values().length);
  }
}
