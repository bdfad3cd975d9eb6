package dev.sluice.broker.server;

import dev.sluice.api.error.RequestRejectedException;
import dev.sluice.api.v1.EventServiceGrpcService;
import dev.sluice.api.v1.ListTablesRequest;
import dev.sluice.api.v1.TableEntry;
import dev.sluice.api.v1.TableList;
import dev.sluice.api.v1.TableSchemaRequest;
import dev.sluice.api.v1.Topology;
import dev.sluice.api.v1.TopologyRequest;
import dev.sluice.broker.publication.PublicationMembers;
import dev.sluice.broker.publication.PublishedTables;
import dev.sluice.broker.control.ControlPlane;
import dev.sluice.broker.control.DataPlane;
import dev.sluice.broker.security.AccessDeniedException;
import dev.sluice.broker.security.GrpcAccess;
import dev.sluice.broker.security.Principal;
import dev.sluice.broker.control.StartTableInfo;
import dev.sluice.schema.BelowGcPointException;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.SchemaStore;
import dev.sluice.schema.TableDroppedException;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import io.micrometer.core.instrument.MeterRegistry;
import dev.sluice.broker.server.admission.ClientMistakes;
import dev.sluice.broker.server.admission.GrpcFrameGuard;
import dev.sluice.broker.server.admission.RateLimitedLog;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.StreamError;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The gRPC face of the event service: {@code Connect} streams become {@link CollectorConnection}s
 * (raw bytes in and out, so the broker checks and decodes every message itself and sends pre-encoded
 * event batches), and the unary calls answer from the schema store and the topology.
 *
 * <p>Every call is admitted by {@link GrpcAccess} before it is served (its rule in
 * {@code AccessRules}): a refused Connect gets a StreamError with the code and then the gRPC status
 * UNAUTHENTICATED or PERMISSION_DENIED, a refused unary call the status. A principal's table patterns
 * filter ListTables and refuse GetTableSchema of a table outside them with PERMISSION_DENIED.
 *
 * <pre>{@code
 * vertx.createHttpServer(options).requestHandler(endpoint.requestHandler(vertx)).listen(8300);
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
  private final GrpcAccess access;
  private final PublishedTables published;
  private final AtomicLong nextLinkId = new AtomicLong(1);
  private final ClientMistakes mistakes;
  /** At most one WARN per kind of client mistake in this interval; the meters count them all. */
  static final java.time.Duration MISTAKE_WARNING_INTERVAL = java.time.Duration.ofSeconds(10);
  private final java.util.Set<CollectorConnection> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private volatile String draining;

  public EventServiceEndpoint(String nodeId, long incarnation, int maxMessageBytes,
      java.util.function.LongSupplier queueBytesLimit, int controlQueueMessages, long resolvedFlushMillis,
      long helloTimeoutMillis, ControlPlane controlPlane, DataPlane dataPlane, SchemaStore schema,
      Supplier<Topology> topology, java.util.function.LongFunction<String> elsewhere, MeterRegistry meters,
      GrpcAccess access, PublishedTables published) {
    this.access = access;
    this.published = published;
    this.settings = new ConnectionSettings(nodeId, incarnation, maxMessageBytes, queueBytesLimit, controlQueueMessages,
        resolvedFlushMillis, 10_000, helloTimeoutMillis, () -> draining != null, elsewhere);
    this.controlPlane = controlPlane;
    this.dataPlane = dataPlane;
    this.schema = schema;
    this.topology = topology;
    this.metrics = new EndpointMetrics(meters);
    this.mistakes = new ClientMistakes(meters, new RateLimitedLog(org.slf4j.LoggerFactory.getLogger(ClientMistakes.class),
        MISTAKE_WARNING_INTERVAL, System::nanoTime));
  }

  /** The rate-limited log of warnings about clients of this endpoint. */
  public RateLimitedLog warnings() {
    return mistakes.warnings();
  }

  /**
   * The HTTP request handler of one HTTP server instance: the frame guard in front of a gRPC server
   * serving EventService.
   */
  public Handler<HttpServerRequest> requestHandler(Vertx vertx) {
    GrpcServer grpc = grpcServer(vertx);
    return req -> GrpcFrameGuard.handle(req, grpc, mistakes);
  }

  /** A gRPC server (an HTTP request handler) serving EventService, without the frame guard. */
  GrpcServer grpcServer(Vertx vertx) {
    // the transport admits up to twice our limit so that an oversized message gets a StreamError naming
    // its size; beyond that the transport itself answers RESOURCE_EXHAUSTED
    int transportLimit = 2 * settings.maxMessageBytes();
    GrpcServer grpc = GrpcServer.server(vertx, new GrpcServerOptions().setMaxMessageSize(transportLimit));
    grpc.callHandler(CONNECT_RAW, admitted(vertx, CONNECT_RAW, true, (req, principal) -> {
      CollectorConnection c = new CollectorConnection(nextLinkId.getAndIncrement(), vertx.getOrCreateContext(), req,
          settings, controlPlane, dataPlane, metrics, mistakes, principal);
      open.add(c);
      c.onClosed(() -> open.remove(c));
      c.start();
    }));
    // the unary calls decode their own request: a malformed one gets a status, not a cancelled stream
    var service = EventServiceGrpcService.SERVICE_NAME;
    ServiceMethod<Buffer, Buffer> getTopology = UnaryCall.method(service, "GetTopology");
    grpc.callHandler(getTopology, admitted(vertx, getTopology, false, (req, principal) -> new UnaryCall<>(vertx, req,
        TopologyRequest.parser(), TopologyRequest.getDescriptor().getFullName(), (TopologyRequest r) -> topology.get(),
        EventServiceEndpoint::statusOf, mistakes, transportLimit).start()));
    ServiceMethod<Buffer, Buffer> getTableSchema = UnaryCall.method(service, "GetTableSchema");
    grpc.callHandler(getTableSchema, admitted(vertx, getTableSchema, false, (req, principal) -> new UnaryCall<>(vertx,
        req, TableSchemaRequest.parser(), TableSchemaRequest.getDescriptor().getFullName(),
        (TableSchemaRequest r) -> tableSchema(r, principal, GrpcAccess.credentials(req).remote()),
        EventServiceEndpoint::statusOf, mistakes, transportLimit).start()));
    ServiceMethod<Buffer, Buffer> listTables = UnaryCall.method(service, "ListTables");
    grpc.callHandler(listTables, admitted(vertx, listTables, false, (req, principal) -> new UnaryCall<>(vertx, req,
        ListTablesRequest.parser(), ListTablesRequest.getDescriptor().getFullName(),
        (ListTablesRequest r) -> listTables(r, principal), EventServiceEndpoint::statusOf, mistakes, transportLimit)
        .start()));
    return grpc;
  }

  /**
   * Starts draining: every open collector stream gets a retryable DRAINING StreamError and is closed,
   * and new streams are refused the same way, so collectors move to another member and reset there
   * from their checkpoints.
   */
  public void drain(String why) {
    draining = why;
    for (CollectorConnection c : open) {
      c.drain(why);
    }
  }

  /** Collector streams open now. */
  public int openStreams() {
    return (int) open.stream().filter(c -> !c.isClosed()).count();
  }

  /**
   * Wraps {@code serve} so that it runs only for an admitted call: the call is paused while its
   * credentials are checked (a token's first check is a slow hash, off the event loop), then served
   * with its principal, or refused with UNAUTHENTICATED / PERMISSION_DENIED.
   */
  private <Q, R> io.vertx.core.Handler<GrpcServerRequest<Q, R>> admitted(Vertx vertx,
      io.vertx.grpc.common.ServiceMethod<Q, R> method, boolean stream,
      java.util.function.BiConsumer<GrpcServerRequest<Q, R>, Principal> serve) {
    dev.sluice.broker.security.AccessRules.rpc(method.fullMethodName());   // a method without a rule is never served
    return req -> {
      if (!access.guard().enabled()) {
        serve.accept(req, Principal.ANONYMOUS);   // no principal configured: nothing to check, no hop
        return;
      }
      req.pause();
      access.admit(vertx, req).onComplete(ar -> {
        if (ar.succeeded()) {
          serve.accept(req, ar.result());
          req.resume();
          return;
        }
        Throwable e = ar.cause() instanceof java.util.concurrent.CompletionException && ar.cause().getCause() != null
            ? ar.cause().getCause() : ar.cause();
        refuse(req, e instanceof AccessDeniedException a ? a
            : AccessDeniedException.unauthenticated("authentication failed: " + e.getClass().getSimpleName()), stream);
      });
    };
  }

  /** Ends a refused call: a Connect first gets a StreamError carrying the typed code, then the status. */
  @SuppressWarnings("unchecked")
  private <Q, R> void refuse(GrpcServerRequest<Q, R> req, AccessDeniedException e, boolean stream) {
    metrics.refused(e.code());
    try {
      if (stream) {
        BrokerMessage err = BrokerMessage.newBuilder().setStreamError(StreamError.newBuilder()
            .setCode(e.code().toWire()).setDetail(e.getMessage()).setRetryable(false)).build();
        ((io.vertx.grpc.server.GrpcServerResponse<Q, Buffer>) req.response()).write(Buffer.buffer(err.toByteArray()));
      }
      req.response().status(statusOf(e)).statusMessage(e.getMessage()).end();
    } catch (RuntimeException gone) {
      // the caller already left
    }
  }

  private static GrpcStatus statusOf(Throwable e) {
    if (e instanceof AccessDeniedException a) {
      return a.code() == dev.sluice.api.error.ErrorCode.UNAUTHENTICATED ? GrpcStatus.UNAUTHENTICATED
          : GrpcStatus.PERMISSION_DENIED;
    }
    if (e instanceof SchemaNotYetKnownException) {
      return GrpcStatus.UNAVAILABLE;
    }
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

  /**
   * The table's schema, when the principal may read it. By name the patterns are checked before the
   * lookup, so a hidden table and a missing one both answer PERMISSION_DENIED (nothing is learnt); by id
   * a hidden table answers PERMISSION_DENIED and a missing one NOT_FOUND (docs/SECURITY.md).
   */
  private dev.sluice.api.v1.TableInfo tableSchema(TableSchemaRequest r, Principal principal, String remote) {
    long ts = r.getAtTs() == 0 ? schema.resolvedTs() : r.getAtTs();
    try {
      return tableSchemaAt(r, ts, principal, remote);
    } catch (UnknownTableException e) {
      long resolved = schema.resolvedTs();
      if (ts > resolved) {
        // the schema at ts is not final yet (capture has not reached it): the table may be created below ts
        throw new SchemaNotYetKnownException("the schema at ts " + ts + " is not known yet: this broker's schema"
            + " is resolved to ts " + resolved + "; retry shortly (" + e.getMessage() + ")");
      }
      throw e;
    }
  }

  private dev.sluice.api.v1.TableInfo tableSchemaAt(TableSchemaRequest r, long ts, Principal principal, String remote) {
    return switch (r.getTableCase()) {
      // a table created after the ts is answered as created: what a dispatcher starting there gets in its Handshake
      case TABLE_ID -> {
        TableInfo t = StartTableInfo.byId(schema, r.getTableId(), ts);
        access.guard().checkTable(principal, t.qualifiedName(), "GetTableSchema", remote);
        yield t.toProto();
      }
      case TABLE_NAME -> {
        String name = r.getTableName();
        // checked before it is looked up, so a principal learns nothing of tables it may not read; a table's
        // qualified name is its schema, a dot and its name, however many dots those hold
        access.guard().checkTable(principal, name, "GetTableSchema", remote);
        yield StartTableInfo.byQualifiedName(schema, name, ts).toProto();
      }
      case TABLE_NOT_SET -> throw new IllegalArgumentException("set table_name or table_id");
    };
  }

  /**
   * Every table alive at the ts that the principal may read (the others are left out, not refused), each
   * flagged when the publication, as last read, leaves it out.
   */
  private TableList listTables(ListTablesRequest r, Principal principal) {
    long ts = r.getAtTs() == 0 ? schema.resolvedTs() : r.getAtTs();
    TableList.Builder out = TableList.newBuilder().setAtTs(ts);
    PublicationMembers members = published.current();
    for (TableInfo t : schema.tablesAt(ts)) {
      if (!principal.mayRead(t.qualifiedName())) {
        continue;
      }
      out.addTables(TableEntry.newBuilder().setTableInfo(t.toProto()).setCreatedTs(createdTs(t, ts))
          .setUnpublished(!members.publishes(t.tableId())));
    }
    return out.build();
  }

  /**
   * The CREATE's commit ts when the history still has it, else the oldest version known. The history is
   * read from the GC point (exclusive: nothing below it is kept), read again if a GC passed it meanwhile.
   */
  private long createdTs(TableInfo t, long ts) {
    List<DdlEvent> history;
    while (true) {
      try {
        history = schema.ddlEvents(t.tableId(), schema.gcTs(), ts);
        break;
      } catch (BelowGcPointException e) {
        // collected between reading the GC point and the history: read from the new one
      }
    }
    for (DdlEvent d : history) {
      if (d.type() == DdlType.CREATE_TABLE) {
        return d.commitTs();
      }
    }
    return history.isEmpty() ? t.version() : Math.min(t.version(), history.get(0).commitTs());
  }

  /** A lookup above the schema store's resolved ts that may still succeed once capture gets there: retryable. */
  private static final class SchemaNotYetKnownException extends RuntimeException {
    SchemaNotYetKnownException(String message) {
      super(message, null, false, false);
    }
  }
}
