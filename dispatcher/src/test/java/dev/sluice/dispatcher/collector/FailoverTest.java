package dev.sluice.dispatcher.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.Member;
import dev.sluice.api.v1.MemberState;
import dev.sluice.api.v1.Topology;
import dev.sluice.dispatcher.BrokerAddress;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which member a collector moves to, from what the topology says of each (table-driven). */
class FailoverTest {

  static Member member(String node, int port, MemberState state, long gcTs) {
    return Member.newBuilder().setNodeId(node).setGrpcAddress("127.0.0.1:" + port).setState(state).setGcTs(gcTs)
        .setResolvedTs(1_000).build();
  }

  static Stream<Arguments> cases() {
    MemberState serving = MemberState.MEMBER_STATE_SERVING;
    return Stream.of(
        Arguments.of("the next serving member in turn", List.of(member("b", 2, serving, 0), member("c", 3, serving, 0)),
            100L, 2),
        Arguments.of("a draining member is skipped", List.of(member("b", 2, MemberState.MEMBER_STATE_DRAINING, 0),
            member("c", 3, serving, 0)), 100L, 3),
        Arguments.of("an unreachable member is skipped", List.of(member("b", 2, MemberState.MEMBER_STATE_UNREACHABLE, 0),
            member("c", 3, serving, 0)), 100L, 3),
        Arguments.of("a starting member is skipped", List.of(member("b", 2, MemberState.MEMBER_STATE_STARTING, 0),
            member("c", 3, serving, 0)), 100L, 3),
        Arguments.of("a member that joined after the checkpoint is skipped",
            List.of(member("b", 2, serving, 500), member("c", 3, serving, 50)), 100L, 3),
        Arguments.of("a checkpoint at the member's servable floor is served there",
            List.of(member("b", 2, serving, 100), member("c", 3, serving, 0)), 100L, 2),
        Arguments.of("a collector without checkpoints takes any serving member",
            List.of(member("b", 2, serving, 500), member("c", 3, serving, 0)), 0L, 2),
        Arguments.of("the current member when it is the only one that can serve",
            List.of(member("b", 2, MemberState.MEMBER_STATE_DRAINING, 0),
                member("c", 3, MemberState.MEMBER_STATE_UNREACHABLE, 0)), 100L, 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void theNextMemberIsOneThatCanResumeTheCheckpoint(String name, List<Member> others, long checkpoint, int expectedPort) {
    Failover f = new Failover(List.of(BrokerAddress.parse("127.0.0.1:1"), BrokerAddress.parse("127.0.0.1:2"),
        BrokerAddress.parse("127.0.0.1:3")), Duration.ofMillis(10), Duration.ofSeconds(1));
    f.learn(Topology.newBuilder().addMembers(member("a", 1, MemberState.MEMBER_STATE_SERVING, 0)).addAllMembers(others)
        .build());

    assertThat(f.advance(checkpoint).port()).isEqualTo(expectedPort);
  }

  @ParameterizedTest(name = "a member that said DRAINING is left even before a topology shows it")
  @MethodSource("cases")
  void aMemberThatSaidItDrainsIsLeft(String name, List<Member> ignored, long checkpoint, int ignoredPort) {
    Failover f = new Failover(List.of(BrokerAddress.parse("127.0.0.1:1"), BrokerAddress.parse("127.0.0.1:2")),
        Duration.ofMillis(10), Duration.ofSeconds(1));
    f.learn(Topology.newBuilder().addMembers(member("a", 1, MemberState.MEMBER_STATE_SERVING, 0))
        .addMembers(member("b", 2, MemberState.MEMBER_STATE_SERVING, 0)).build());
    f.advance(0);   // on b now
    f.draining(BrokerAddress.parse("127.0.0.1:1"));
    f.draining(BrokerAddress.parse("127.0.0.1:2"));
    f.learn(Topology.newBuilder().addMembers(member("a", 1, MemberState.MEMBER_STATE_SERVING, 0)).build());

    assertThat(f.advance(checkpoint).port()).isEqualTo(1);
  }

  @org.junit.jupiter.api.Test
  void whenNoMemberCanServeTheNextOneInTurnIsTried() {
    Failover f = new Failover(List.of(BrokerAddress.parse("127.0.0.1:1"), BrokerAddress.parse("127.0.0.1:2")),
        Duration.ofMillis(10), Duration.ofSeconds(1));
    f.learn(Topology.newBuilder().addMembers(member("a", 1, MemberState.MEMBER_STATE_UNREACHABLE, 0))
        .addMembers(member("b", 2, MemberState.MEMBER_STATE_SERVING, 900)).build());

    assertThat(f.advance(100).port()).isEqualTo(2);
    assertThat(f.advance(100).port()).isEqualTo(1);
  }

  @org.junit.jupiter.api.Test
  void movingAwayFromABrokenStreamSkipsTheBackoffButNotTheJitter() {
    Failover f = new Failover(List.of(BrokerAddress.parse("127.0.0.1:1"), BrokerAddress.parse("127.0.0.1:2")),
        Duration.ofMillis(100), Duration.ofSeconds(5));
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      long d = f.switchDelayMs();
      assertThat(d).isBetween(0L, 50L);
      seen.add(d);
    }
    assertThat(seen).hasSizeGreaterThan(10);   // spread, so a dead member's collectors do not arrive at once
    assertThat(f.nextDelayMs()).isBetween(80L, 120L);   // a failed attempt still backs off from the minimum
    assertThat(f.nextDelayMs()).isBetween(160L, 240L);
  }
}
