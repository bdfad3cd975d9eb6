package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UnknownFieldSet;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.DispatcherRequest;
import org.junit.jupiter.api.Test;

class UnknownFieldsTest {

  @Test
  void knownMessageHasNoUnknownField() {
    CollectorMessage m = CollectorMessage.newBuilder()
        .setDispatcherRequest(DispatcherRequest.newBuilder().setSpan(TableSpan.wholeTable(5).toProto()))
        .build();
    assertThat(UnknownFields.find(m)).isEmpty();
  }

  @Test
  void unknownFieldDeepInsideIsFoundWithItsPath() throws Exception {
    dev.sluice.api.v1.TableSpan spanWithExtra = TableSpan.wholeTable(5).toProto().toBuilder()
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(77, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build())
        .build();
    byte[] bytes = CollectorMessage.newBuilder()
        .setDispatcherRequest(DispatcherRequest.newBuilder().setSpan(spanWithExtra)).build().toByteArray();

    CollectorMessage parsed = CollectorMessage.parseFrom(bytes);

    assertThat(UnknownFields.find(parsed)).contains("dispatcher_request.span#77");
  }
}
