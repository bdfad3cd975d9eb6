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
