package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UnknownFieldSet;
import dev.sluice.api.v1.CollectorMessage;
import dev.sluice.api.v1.CreditReport;
import dev.sluice.api.v1.DispatcherCredit;
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

  @Test
  void unknownFieldInOneItemOfALongRepeatedFieldIsFoundWithItsIndex() throws Exception {
    CreditReport.Builder report = CreditReport.newBuilder();
    for (int i = 0; i < 2_500; i++) {
      report.addDispatchers(DispatcherCredit.newBuilder().setDispatcherId(DispatcherId.random().toProto())
          .setEpoch(1).setAvailableBytes(1 << 20));
    }
    assertThat(UnknownFields.find(CollectorMessage.newBuilder().setCreditReport(report).build())).isEmpty();
    report.setDispatchers(1_234, report.getDispatchers(1_234).toBuilder().setDispatcherId(
        report.getDispatchers(1_234).getDispatcherId().toBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(9, UnknownFieldSet.Field.newBuilder().addFixed64(3).build()).build())));
    byte[] bytes = CollectorMessage.newBuilder().setCreditReport(report).build().toByteArray();

    CollectorMessage parsed = CollectorMessage.parseFrom(bytes);

    assertThat(UnknownFields.find(parsed)).contains("credit_report.dispatchers[1234].dispatcher_id#9");
  }
}
