package dev.sluice.broker.server;

import dev.sluice.api.UnknownFields;
import dev.sluice.api.error.RequestRejectedException;
import dev.sluice.api.v1.EventServiceGrpcService;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.Topology;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.broker.control.ControlPlane;
import dev.sluice.broker.control.DataPlane;
import dev.sluice.schema.BelowGcPointException;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableDroppedException;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import com.google.protobuf.Message;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The gRPC face of the event service: {@code Connect} streams become {@link CollectorConnection}s
 * (raw bytes in and out, so the broker checks and decodes every message itself and sends pre-encoded
 * event batches), and the unary calls answer from the schema store and the topology.
 *
 * <pre>{@code
 * GrpcServer grpc = endpoint.grpcServer(vertx);
 * vertx.createHttpServer(options).requestHandler(grpc).listen(8300);
 * }</pre>
 */
public final class EventServiceEndpoint {

  /** Connect with raw payloads: decoding (and rejecting) is done by {@link CollectorConnection}. */
  static final ServiceMethod<Buffer, Buffer> CONNECT_RAW = ServiceMethod.server(EventServiceGrpcService.SERVICE_NAME,
      "Connect", GrpcMessageEncoder.IDENTITY, GrpcMessageDecoder.IDENTITY);

  private final ConnectionSettings settings;
  private final ControlPlane controlPlane;
  private final DataPlane dataPlane;
  private final SchemaStore schema;
  private final Supplier<Topology> topology;
  private final EndpointMetrics metrics;
  private final AtomicLong nextLinkId = new AtomicLong(1);

  public EventServiceEndpoint(String nodeId, long incarnation, int maxMessageBytes,
      java.util.function.LongSupplier queueBytesLimit, int controlQueueMessages, long resolvedFlushMillis,
      ControlPlane controlPlane, DataPlane dataPlane, SchemaStore schema, Supplier<Topology> topology,
      MeterRegistry meters) {
    this.settings = new ConnectionSettings(nodeId, incarnation, maxMessageBytes, queueBytesLimit, controlQueueMessages,
        resolvedFlushMillis, 10_000);
    this.controlPlane = controlPlane;
    this.dataPlane = dataPlane;
    this.schema = schema;
    this.topology = topology;
    this.metrics = new EndpointMetrics(meters);
  }

  /** A gRPC server (an HTTP request handler) serving EventService; one per HTTP server instance. */
  public GrpcServer grpcServer(Vertx vertx) {
    // the transport admits up to twice our limit so that an oversized message gets a StreamError naming
    // its size; beyond that the transport itself answers RESOURCE_EXHAUSTED
    GrpcServer grpc = GrpcServer.server(vertx, new GrpcServerOptions()
        .setMaxMessageSize(2L * settings.maxMessageBytes()));
    grpc.callHandler(CONNECT_RAW, req -> new CollectorConnection(nextLinkId.getAndIncrement(),
        vertx.getOrCreateContext(), req, settings, controlPlane, dataPlane, metrics).start());
    grpc.callHandler(EventServiceGrpcService.GetTopology, req -> unary(vertx, req, (TopologyRequest r) -> topology.get()));
    grpc.callHandler(EventServiceGrpcService.GetTableSchema, req -> unary(vertx, req, this::tableSchema));
    grpc.callHandler(EventServiceGrpcService.ListTables, req -> unary(vertx, req, this::listTables));
    return grpc;
  }

  /** Answers a unary call on a worker (schema reads are I/O), mapping typed errors to gRPC statuses. */
  private static <Q extends Message, R> void unary(Vertx vertx, GrpcServerRequest<Q, R> req,
      java.util.function.Function<Q, R> answer) {
    req.handler(q -> {
      var unknown = UnknownFields.find(q);
      if (unknown.isPresent()) {
        req.response().status(GrpcStatus.INVALID_ARGUMENT)
            .statusMessage("unknown field " + unknown.get() + "; this broker never ignores fields").end();
        return;
      }
      vertx.executeBlocking(() -> answer.apply(q), false).onComplete(ar -> {
        if (ar.succeeded()) {
          req.response().end(ar.result());
        } else {
          Throwable e = ar.cause();
          req.response().status(statusOf(e)).statusMessage(String.valueOf(e.getMessage())).end();
        }
      });
    });
  }

  private static GrpcStatus statusOf(Throwable e) {
    if (e instanceof UnknownTableException) {
      return GrpcStatus.NOT_FOUND;
    }
    if (e instanceof TableDroppedException) {
      return GrpcStatus.FAILED_PRECONDITION;
    }
    if (e instanceof BelowGcPointException) {
      return GrpcStatus.OUT_OF_RANGE;
    }
    if (e instanceof RequestRejectedException || e instanceof IllegalArgumentException) {
      return GrpcStatus.INVALID_ARGUMENT;
    }
    return GrpcStatus.UNAVAILABLE;
  }

  private dev.sluice.api.v1.TableInfo tableSchema(TableSchemaRequest r) {
    long ts = r.getAtTs() == 0 ? schema.resolvedTs() : r.getAtTs();
    return switch (r.getTableCase()) {
      case TABLE_ID -> schema.tableInfoAt(r.getTableId(), ts).toProto();
      case TABLE_NAME -> {
        String name = r.getTableName();
        int dot = name.indexOf('.');
        if (dot <= 0 || dot == name.length() - 1 || name.indexOf('.', dot + 1) >= 0) {
          throw new IllegalArgumentException("table_name must be \"schema.table\", got \"" + name + "\"");
        }
        yield schema.tableByName(name.substring(0, dot), name.substring(dot + 1), ts).toProto();
      }
      case TABLE_NOT_SET -> throw new IllegalArgumentException("set table_name or table_id");
    };
  }

  private TableList listTables(ListTablesRequest r) {
    long ts = r.getAtTs() == 0 ? schema.resolvedTs() : r.getAtTs();
    TableList.Builder out = TableList.newBuilder().setAtTs(ts);
    for (TableInfo t : schema.tablesAt(ts)) {
      out.addTables(TableEntry.newBuilder().setTableInfo(t.toProto()).setCreatedTs(createdTs(t, ts)));
    }
    return out.build();
  }

  /** The CREATE's commit ts when the history still has it, else the oldest version known. */
  private long createdTs(TableInfo t, long ts) {
    List<DdlEvent> history = schema.ddlEvents(t.tableId(), Math.max(0, schema.gcTs() - 1), ts);
    for (DdlEvent d : history) {
      if (d.type() == DdlType.CREATE_TABLE) {
        return d.commitTs();
      }
    }
    return history.isEmpty() ? t.version() : Math.min(t.version(), history.get(0).commitTs());
  }
}
