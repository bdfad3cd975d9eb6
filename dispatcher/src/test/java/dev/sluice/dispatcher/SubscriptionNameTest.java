package dev.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which table names a subscription takes: the ones the broker resolves (one dot, names as created upstream). */
class SubscriptionNameTest {

  @ParameterizedTest
  @ValueSource(strings = {"public.orders", "Mixed.Order Items", "my schema.t", "public.Ünïcode", "a.b"})
  void takesEveryNameTheBrokerResolves(String name) {
    assertThat(Subscription.table(name).tableName()).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"orders", ".orders", "public.", "a.b.c", " .orders", "public. ", ""})
  void refusesANameWithoutExactlyOneDotBetweenTwoParts(String name) {
    assertThatThrownBy(() -> Subscription.table(name)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema.table");
  }
}
