package dev.sluice.dispatcher.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.DispatcherId;
import dev.sluice.api.ProtocolInfo;
import dev.sluice.api.v1.Hello;
import dev.sluice.api.v1.Welcome;
import dev.sluice.dispatcher.Subscription;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the collector asks for in Hello, and which Welcome it can live with. */
class FeatureNegotiationTest {

  /**
   * Copy-text is asked for but never needed: a broker without it (older, or one that does not grant it) is used
   * as it is, for a snapshot too, whose READ rows then come as RowChanges.
   */
  @Test
  void copyTextIsAskedForOptionallyAndABrokerWithoutItIsUsed() {
    Hello hello = FeatureNegotiation.hello("c1");
    assertThat(hello.getOptionalFeaturesList()).contains(ProtocolInfo.FEATURE_COPY_TEXT);
    assertThat(hello.getRequiredFeaturesList()).doesNotContain(ProtocolInfo.FEATURE_COPY_TEXT);

    Welcome withoutCopyText = Welcome.newBuilder().setProtocolVersion(ProtocolInfo.VERSION)
        .addAllFeatures(FeatureNegotiation.REQUIRED).addFeatures(ProtocolInfo.FEATURE_SNAPSHOT)
        .addFeatures(ProtocolInfo.FEATURE_FRAGMENTED_TXN).build();
    assertThat(FeatureNegotiation.refusal(withoutCopyText, "broker-a")).isNull();
    assertThat(FeatureNegotiation.missingFor(new DispatcherId(1, 2), Subscription.table("public.orders")
        .withSnapshot(), Set.copyOf(withoutCopyText.getFeaturesList()), "broker-a")).isNull();
  }
}
