package dev.sluice.dispatcher.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The dispatcher state machine's specification: one row per (state, input) pair, every pair present.
 * Columns: state | input | next state | effects ("-" for none) | what the row means.
 */
class DispatcherTransitionsTest {

  static final String TABLE = """
      REGISTERING | CONNECTED          | REGISTERING | SEND_REGISTER             | a new stream registers the dispatcher
      REGISTERING | BROKER_RESTARTED   | REGISTERING | SEND_REGISTER             | a restarted broker is registered with anew
      REGISTERING | DISCONNECTED       | REGISTERING | -                         | waits for the next stream
      REGISTERING | READY              | READY       | SCHEDULE_PROCEED          | ready schedules the first reset
      REGISTERING | PROCEED            | REGISTERING | SEND_REGISTER             | the retry after a transient rejection registers again
      REGISTERING | ACK_ACCEPTED       | REGISTERING | -                         | the accepted register still waits for Ready
      REGISTERING | ACK_STALE          | REMOVED     | NOTIFY_ERROR              | a tombstoned id fails the subscription
      REGISTERING | ACK_NOT_FOUND      | REGISTERING | SCHEDULE_RETRY            | an odd not-found on register retries later
      REGISTERING | ACK_REJECTED       | REMOVED     | NOTIFY_ERROR              | a rejected register is surfaced, never retried blindly
      REGISTERING | ACK_RETRYABLE      | REGISTERING | SCHEDULE_RETRY            | a transient rejection retries with backoff
      REGISTERING | HANDSHAKE          | REGISTERING | -                         | a handshake with no live epoch is stale
      REGISTERING | EVENTS             | REGISTERING | -                         | events with no live epoch are stale
      REGISTERING | RESOLVED           | REGISTERING | -                         | resolved with no live epoch is stale
      REGISTERING | STALE_EPOCH        | REGISTERING | -                         | stale events are dropped silently
      REGISTERING | SEQUENCE_VIOLATION | REGISTERING | -                         | no epoch to violate while registering
      REGISTERING | HEARTBEAT_REMOVED  | REGISTERING | -                         | already registering again
      REGISTERING | CLOSE              | REMOVED     | SEND_REMOVE               | closing while registering removes
      REGISTERING | LISTENER_FAILED    | REMOVED     | SEND_REMOVE, NOTIFY_ERROR | a failed listener ends the dispatcher
      REGISTERING | RESET_REQUESTED    | REGISTERING | -                         | the coming reset carries the change
      READY       | CONNECTED          | REGISTERING | SEND_REGISTER             | a new stream registers again
      READY       | BROKER_RESTARTED   | REGISTERING | SEND_REGISTER             | a restarted broker forgot the registration
      READY       | DISCONNECTED       | REGISTERING | -                         | a lost stream loses the registration
      READY       | READY              | READY       | -                         | a repeated Ready changes nothing
      READY       | PROCEED            | RESETTING   | SEND_RESET                | the due reset starts an epoch
      READY       | ACK_ACCEPTED       | READY       | -                         | the register ack after Ready changes nothing
      READY       | ACK_STALE          | REMOVED     | NOTIFY_ERROR              | a stale register ack wins over Ready
      READY       | ACK_NOT_FOUND      | REGISTERING | SEND_REGISTER             | an unknown id registers again
      READY       | ACK_REJECTED       | REMOVED     | NOTIFY_ERROR              | a rejected register ack wins over Ready
      READY       | ACK_RETRYABLE      | REGISTERING | SCHEDULE_RETRY            | a transient register rejection retries
      READY       | HANDSHAKE          | READY       | -                         | a handshake before any reset is stale
      READY       | EVENTS             | READY       | -                         | events before any reset are stale
      READY       | RESOLVED           | READY       | -                         | resolved before any reset is stale
      READY       | STALE_EPOCH        | READY       | -                         | stale events are dropped silently
      READY       | SEQUENCE_VIOLATION | READY       | -                         | no epoch to violate before the reset
      READY       | HEARTBEAT_REMOVED  | REGISTERING | SEND_REGISTER             | the broker forgot the id: register again
      READY       | CLOSE              | REMOVED     | SEND_REMOVE               | closing when ready removes
      READY       | LISTENER_FAILED    | REMOVED     | SEND_REMOVE, NOTIFY_ERROR | a failed listener ends the dispatcher
      READY       | RESET_REQUESTED    | READY       | -                         | the due reset carries the change
      RESETTING   | CONNECTED          | REGISTERING | SEND_REGISTER             | a new stream registers again
      RESETTING   | BROKER_RESTARTED   | REGISTERING | SEND_REGISTER             | a restarted broker forgot the reset
      RESETTING   | DISCONNECTED       | REGISTERING | -                         | a lost stream loses the reset
      RESETTING   | READY              | RESETTING   | -                         | a late Ready changes nothing
      RESETTING   | PROCEED            | RESETTING   | -                         | a late timer does not send a second reset
      RESETTING   | ACK_ACCEPTED       | RESETTING   | -                         | the accepted reset waits for its handshake
      RESETTING   | ACK_STALE          | RESETTING   | SEND_RESET                | a stale reset retries with a higher epoch
      RESETTING   | ACK_NOT_FOUND      | REGISTERING | SEND_REGISTER             | an unknown id registers again
      RESETTING   | ACK_REJECTED       | REMOVED     | SEND_REMOVE, NOTIFY_ERROR | a rejected reset is surfaced and removed
      RESETTING   | ACK_RETRYABLE      | READY       | SCHEDULE_RETRY            | a transient reset rejection retries later
      RESETTING   | HANDSHAKE          | STREAMING   | DELIVER                   | the handshake opens the epoch
      RESETTING   | EVENTS             | RESETTING   | SEND_RESET                | events before the handshake reset again
      RESETTING   | RESOLVED           | RESETTING   | SEND_RESET                | resolved before the handshake resets again
      RESETTING   | STALE_EPOCH        | RESETTING   | -                         | old epochs are dropped silently
      RESETTING   | SEQUENCE_VIOLATION | RESETTING   | SEND_RESET                | a violation of the new epoch resets again
      RESETTING   | HEARTBEAT_REMOVED  | REGISTERING | SEND_REGISTER             | the broker forgot the id: register again
      RESETTING   | CLOSE              | REMOVED     | SEND_REMOVE               | closing while resetting removes
      RESETTING   | LISTENER_FAILED    | REMOVED     | SEND_REMOVE, NOTIFY_ERROR | a failed listener ends the dispatcher
      RESETTING   | RESET_REQUESTED    | RESETTING   | -                         | one reset in flight: asked again after its handshake
      STREAMING   | CONNECTED          | REGISTERING | SEND_REGISTER             | a new stream registers again
      STREAMING   | BROKER_RESTARTED   | REGISTERING | SEND_REGISTER             | a restarted broker forgot the stream
      STREAMING   | DISCONNECTED       | REGISTERING | -                         | a lost stream ends the epoch
      STREAMING   | READY              | STREAMING   | -                         | a late Ready changes nothing
      STREAMING   | PROCEED            | STREAMING   | -                         | a late timer changes nothing
      STREAMING   | ACK_ACCEPTED       | STREAMING   | -                         | the late reset ack changes nothing
      STREAMING   | ACK_STALE          | RESETTING   | SEND_RESET                | a stale verdict on the reset resets higher
      STREAMING   | ACK_NOT_FOUND      | REGISTERING | SEND_REGISTER             | an unknown id registers again
      STREAMING   | ACK_REJECTED       | REMOVED     | SEND_REMOVE, NOTIFY_ERROR | a rejected reset is surfaced and removed
      STREAMING   | ACK_RETRYABLE      | READY       | SCHEDULE_RETRY            | a transient reset rejection retries later
      STREAMING   | HANDSHAKE          | RESETTING   | SEND_RESET                | a second handshake is a violation
      STREAMING   | EVENTS             | STREAMING   | DELIVER                   | in-order events are delivered
      STREAMING   | RESOLVED           | STREAMING   | DELIVER                   | in-order resolved is delivered
      STREAMING   | STALE_EPOCH        | STREAMING   | -                         | old epochs are dropped silently
      STREAMING   | SEQUENCE_VIOLATION | RESETTING   | SEND_RESET                | a gap or wrong last seq resets from the checkpoint
      STREAMING   | HEARTBEAT_REMOVED  | REGISTERING | SEND_REGISTER             | the broker forgot the id: register again
      STREAMING   | CLOSE              | REMOVED     | SEND_REMOVE               | closing while streaming removes
      STREAMING   | LISTENER_FAILED    | REMOVED     | SEND_REMOVE, NOTIFY_ERROR | a failed listener ends the dispatcher
      STREAMING   | RESET_REQUESTED    | RESETTING   | SEND_RESET                | a user's change starts a new epoch
      REMOVED     | CONNECTED          | REMOVED     | -                         | removed is absorbing
      REMOVED     | BROKER_RESTARTED   | REMOVED     | -                         | removed is absorbing
      REMOVED     | DISCONNECTED       | REMOVED     | -                         | removed is absorbing
      REMOVED     | READY              | REMOVED     | -                         | removed is absorbing
      REMOVED     | PROCEED            | REMOVED     | -                         | removed is absorbing
      REMOVED     | ACK_ACCEPTED       | REMOVED     | -                         | the remove ack changes nothing
      REMOVED     | ACK_STALE          | REMOVED     | -                         | removed is absorbing
      REMOVED     | ACK_NOT_FOUND      | REMOVED     | -                         | removed is absorbing
      REMOVED     | ACK_REJECTED       | REMOVED     | -                         | removed is absorbing
      REMOVED     | ACK_RETRYABLE      | REMOVED     | -                         | removed is absorbing
      REMOVED     | HANDSHAKE          | REMOVED     | -                         | removed is absorbing
      REMOVED     | EVENTS             | REMOVED     | -                         | removed is absorbing
      REMOVED     | RESOLVED           | REMOVED     | -                         | removed is absorbing
      REMOVED     | STALE_EPOCH        | REMOVED     | -                         | removed is absorbing
      REMOVED     | SEQUENCE_VIOLATION | REMOVED     | -                         | removed is absorbing
      REMOVED     | HEARTBEAT_REMOVED  | REMOVED     | -                         | removed is absorbing
      REMOVED     | CLOSE              | REMOVED     | -                         | closing twice is harmless
      REMOVED     | LISTENER_FAILED    | REMOVED     | -                         | removed is absorbing
      REMOVED     | RESET_REQUESTED    | REMOVED     | -                         | removed is absorbing
      """;

  record Row(DispatcherState from, DispatcherInput input, Transition expected, String meaning) {}

  static Map<String, Row> parse() {
    Map<String, Row> rows = new HashMap<>();
    for (String line : TABLE.strip().split("\n")) {
      String[] c = Arrays.stream(line.split("\\|")).map(String::strip).toArray(String[]::new);
      List<DispatcherEffect> effects = c[3].equals("-") ? List.of()
          : Arrays.stream(c[3].split(",")).map(String::strip).map(DispatcherEffect::valueOf).toList();
      Row row = new Row(DispatcherState.valueOf(c[0]), DispatcherInput.valueOf(c[1]),
          new Transition(DispatcherState.valueOf(c[2]), effects), c[4]);
      Row previous = rows.put(row.from() + "/" + row.input(), row);
      assertThat(previous).as("duplicate row %s / %s", row.from(), row.input()).isNull();
    }
    return rows;
  }

  static Stream<Arguments> everyPairWithExpected() {
    Map<String, Row> rows = parse();
    return EnumSet.allOf(DispatcherState.class).stream()
        .flatMap(s -> EnumSet.allOf(DispatcherInput.class).stream().map(i -> {
          Row row = rows.get(s + "/" + i);
          assertThat(row).as("the table lacks a row for %s + %s", s, i).isNotNull();
          return Arguments.of(s, i, row.expected(), row.meaning());
        }));
  }

  @ParameterizedTest(name = "{0} + {1} {2}: {3}")
  @MethodSource("everyPairWithExpected")
  void transitionFollowsTable(DispatcherState from, DispatcherInput input, Transition expected, String meaning) {
    assertThat(DispatcherTransitions.apply(from, input)).as(meaning).isEqualTo(expected);
  }

  @Test
  void tableHasExactlyOneRowPerPair() {
    assertThat(parse()).hasSize(DispatcherState.values().length * DispatcherInput.values().length);
  }

  @Test
  void everyResetCauseOfTheBriefLeadsBackToResettingFromStreaming() {
    var causes = EnumSet.of(DispatcherInput.SEQUENCE_VIOLATION, DispatcherInput.HANDSHAKE, DispatcherInput.ACK_STALE);
    assertThat(causes.stream().map(i -> DispatcherTransitions.apply(DispatcherState.STREAMING, i))
        .collect(Collectors.toSet()))
        .containsExactly(Transition.to(DispatcherState.RESETTING, DispatcherEffect.SEND_RESET));
  }
}
