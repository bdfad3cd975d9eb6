package dev.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which table names a subscription takes: the ones the broker resolves (a dot between two non-blank parts, names as
 * created upstream; a name may hold dots: {@code public."a.b"} is {@code "public.a.b"}).
 */
class SubscriptionNameTest {

  @ParameterizedTest
  @ValueSource(strings = {"public.orders", "Mixed.Order Items", "my schema.t", "public.Ünïcode", "a.b", "a.b.c",
      "rw.Order.Items"})
  void takesEveryNameTheBrokerResolves(String name) {
    assertThat(Subscription.table(name).tableName()).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"orders", ".orders", "public.", " .orders", "public. ", "", "..", ". .", " . "})
  void refusesANameWithoutADotBetweenTwoParts(String name) {
    assertThatThrownBy(() -> Subscription.table(name)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema.table");
  }
}
