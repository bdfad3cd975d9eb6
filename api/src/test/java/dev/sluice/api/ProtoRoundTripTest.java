package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.Message;
import dev.sluice.api.v1.CommonProto;
import dev.sluice.api.v1.ControlProto;
import dev.sluice.api.v1.EventsProto;
import dev.sluice.api.v1.SchemaProto;
import dev.sluice.api.v1.ServiceProto;
import dev.sluice.api.v1.ValueProto;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every message of protocol v1, with every field set (once per member of each oneof), survives a
 * trip through bytes and back through the generated parser.
 */
class ProtoRoundTripTest {

  private static final List<FileDescriptor> FILES = List.of(
      CommonProto.getDescriptor(), ValueProto.getDescriptor(), SchemaProto.getDescriptor(),
      ControlProto.getDescriptor(), EventsProto.getDescriptor(), ServiceProto.getDescriptor());

  static Stream<Arguments> everyMessageAndOneofChoice() {
    List<Arguments> cases = new ArrayList<>();
    for (Descriptor d : allMessages()) {
      List<OneofDescriptor> oneofs = realOneofs(d);
      int variants = oneofs.stream().mapToInt(o -> o.getFieldCount()).max().orElse(1);
      for (int v = 0; v < variants; v++) {
        cases.add(Arguments.of(d.getFullName() + "#" + v, d, v));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyMessageAndOneofChoice")
  void messageSurvivesBytes(String name, Descriptor descriptor, int variant) throws Exception {
    Message original = populate(prototype(descriptor), variant, 0);
    byte[] bytes = original.toByteArray();

    Message parsed = prototype(descriptor).getParserForType().parseFrom(bytes);

    assertThat(parsed).isEqualTo(original);
    assertThat(parsed.getUnknownFields().asMap()).isEmpty();
    assertThat(UnknownFields.find(parsed)).isEmpty();
    for (FieldDescriptor f : descriptor.getFields()) {
      if (f.getRealContainingOneof() == null) {
        assertThat(f.isRepeated() ? parsed.getRepeatedFieldCount(f) > 0 : parsed.hasField(f) || isProto3Scalar(f))
            .as("field %s is populated", f.getFullName()).isTrue();
      }
    }
  }

  @Test
  void everyFileIsCovered() {
    Set<String> names = new LinkedHashSet<>();
    allMessages().forEach(d -> names.add(d.getName()));
    assertThat(names).contains("CollectorMessage", "BrokerMessage", "Hello", "Welcome", "DispatcherRequest",
        "ControlAck", "Ready", "Handshake", "EventBatch", "ResolvedBatch", "HeartbeatBatch",
        "HeartbeatResponse", "CreditReport", "StreamError", "Topology", "Member", "TableSchemaRequest",
        "TableInfo", "ColumnInfo", "DdlEvent", "DmlBatch", "SyncPoint", "Resolved", "Value", "RowChange");
  }

  @Test
  void everyOneofVariantOfTheEnvelopesIsAMessage() {
    for (String envelope : List.of("CollectorMessage", "BrokerMessage", "Value", "DataEvent")) {
      Descriptor d = allMessages().stream().filter(m -> m.getName().equals(envelope)).findFirst().orElseThrow();
      assertThat(realOneofs(d)).as(envelope).hasSize(1);
    }
  }

  private static List<Descriptor> allMessages() {
    List<Descriptor> out = new ArrayList<>();
    for (FileDescriptor f : FILES) {
      for (Descriptor d : f.getMessageTypes()) {
        collect(d, out);
      }
    }
    return out;
  }

  private static void collect(Descriptor d, List<Descriptor> out) {
    if (d.getOptions().getMapEntry()) {
      return;
    }
    out.add(d);
    d.getNestedTypes().forEach(n -> collect(n, out));
  }

  private static List<OneofDescriptor> realOneofs(Descriptor d) {
    return d.getRealOneofs();
  }

  private static boolean isProto3Scalar(FieldDescriptor f) {
    return f.getJavaType() != FieldDescriptor.JavaType.MESSAGE;
  }

  private static Message prototype(Descriptor d) throws ReflectiveOperationException {
    String javaName = "dev.sluice.api.v1." + d.getName();
    return (Message) Class.forName(javaName).getMethod("getDefaultInstance").invoke(null);
  }

  /** Sets every field to a non-default value; in each oneof, the member at {@code variant} (mod size). */
  private static Message populate(Message proto, int variant, int depth) throws ReflectiveOperationException {
    Message.Builder b = proto.newBuilderForType();
    Descriptor d = proto.getDescriptorForType();
    for (FieldDescriptor f : d.getFields()) {
      OneofDescriptor oneof = f.getRealContainingOneof();
      if (oneof != null && oneof.getField(variant % oneof.getFieldCount()) != f) {
        continue;
      }
      if (f.isMapField()) {
        Descriptor entry = f.getMessageType();
        Message.Builder eb = b.newBuilderForField(f);
        eb.setField(entry.findFieldByName("key"), "k" + depth);
        eb.setField(entry.findFieldByName("value"), "v" + depth);
        b.addRepeatedField(f, eb.build());
        continue;
      }
      Object value = sample(b, f, variant, depth);
      if (value == null) {
        continue;
      }
      if (f.isRepeated()) {
        b.addRepeatedField(f, value);
        b.addRepeatedField(f, value);
      } else {
        b.setField(f, value);
      }
    }
    return b.build();
  }

  private static Object sample(Message.Builder b, FieldDescriptor f, int variant, int depth)
      throws ReflectiveOperationException {
    return switch (f.getJavaType()) {
      case INT -> 7 + depth;
      case LONG -> 1_234_567_890_123L + depth;
      case FLOAT -> 1.5f;
      case DOUBLE -> 2.25;
      case BOOLEAN -> true;
      case STRING -> f.getName() + "-" + depth;
      case BYTE_STRING -> ByteString.copyFromUtf8("bytes-" + depth);
      case ENUM -> f.getEnumType().getValues().get(f.getEnumType().getValues().size() - 1);
      case MESSAGE -> depth >= 3
          ? (f.isRepeated() ? null : b.newBuilderForField(f).build())
          : populate(b.newBuilderForField(f).build(), variant, depth + 1);
    };
  }
}
