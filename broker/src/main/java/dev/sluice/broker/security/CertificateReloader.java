package dev.sluice.broker.security;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches a node's TLS files and serves new ones to new connections when they change: every
 * {@code reloadInterval} it hashes the files; on a change it loads and checks them
 * ({@link TlsMaterial#load}) and hands them to every registered server
 * ({@code HttpServer.updateSSLOptions}). Established connections keep the certificate they shook
 * hands with, so open streams go on. Files that fail the checks are refused and the old certificate
 * stays; they are tried again once they change again.
 *
 * <p>Meter: {@code sluice.tls.reloads} (tag {@code outcome}: {@code applied}, {@code refused}).
 *
 * <p>Threads: {@link #register} from any thread; checks run on a worker, updates from there.
 *
 * <pre>{@code
 * CertificateReloader r = CertificateReloader.start(vertx, tlsConfig, registry, Instant::now);
 * r.register(httpServer);
 * r.current();    // what new connections get
 * }</pre>
 */
public final class CertificateReloader implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CertificateReloader.class);

  private final Vertx vertx;
  private final TlsConfig config;
  private final Supplier<Instant> clock;
  private final List<HttpServer> servers = new CopyOnWriteArrayList<>();
  private final Counter applied;
  private final Counter refused;
  private final AtomicBoolean checking = new AtomicBoolean();
  private final long timer;
  private volatile TlsMaterial current;
  /** The fingerprint of files last seen on disk (refused or applied): a refused set is not retried until it changes. */
  private volatile String lastSeen;

  private CertificateReloader(Vertx vertx, TlsConfig config, TlsMaterial initial, MeterRegistry meters,
      Supplier<Instant> clock) {
    this.vertx = vertx;
    this.config = config;
    this.clock = clock;
    this.current = initial;
    this.lastSeen = initial.fingerprint();
    this.applied = Counter.builder("sluice.tls.reloads").tag("outcome", "applied")
        .description("TLS certificate changes on disk served to new connections").register(meters);
    this.refused = Counter.builder("sluice.tls.reloads").tag("outcome", "refused")
        .description("TLS certificate changes on disk refused (unreadable, expired, key not matching)").register(meters);
    this.timer = vertx.setPeriodic(config.reloadInterval().toMillis(), t -> check());
  }

  /**
   * Loads the files once (a broker with bad TLS files does not start) and starts watching them.
   *
   * @throws IllegalArgumentException naming the file and what is wrong
   */
  public static CertificateReloader start(Vertx vertx, TlsConfig config, MeterRegistry meters,
      Supplier<Instant> clock) {
    TlsMaterial initial = TlsMaterial.load(config, vertx, clock.get());
    log.atInfo().addKeyValue("subject", initial.subject()).addKeyValue("notAfter", initial.leaf().getNotAfter().toInstant())
        .addKeyValue("mutualTls", config.mutual()).addKeyValue("certFile", config.certFile())
        .log("TLS certificate loaded");
    return new CertificateReloader(vertx, config, initial, meters, clock);
  }

  /** The material new connections are served. */
  public TlsMaterial current() {
    return current;
  }

  public TlsConfig config() {
    return config;
  }

  /** Adds a server to update on every reload. */
  public void register(HttpServer server) {
    servers.add(server);
  }

  public void unregister(HttpServer server) {
    servers.remove(server);
  }

  /** Checks the files now (the timer calls this); completes once any change was applied or refused. */
  public Future<Boolean> check() {
    if (!checking.compareAndSet(false, true)) {
      return Future.succeededFuture(false);
    }
    return vertx.executeBlocking(() -> {
      String seen;
      try {
        seen = TlsMaterial.fingerprintOf(config);
      } catch (IllegalArgumentException e) {
        return null;   // a file is missing for a moment (being replaced): look again next round
      }
      if (seen.equals(lastSeen)) {
        return null;
      }
      lastSeen = seen;
      try {
        return TlsMaterial.load(config, vertx, clock.get());
      } catch (IllegalArgumentException e) {
        refused.increment();
        log.atWarn().addKeyValue("certFile", config.certFile()).addKeyValue("keyFile", config.keyFile())
            .addKeyValue("serving", current.subject())
            .log("new TLS files refused; still serving the previous certificate: " + e.getMessage());
        return null;
      }
    }, false).compose(next -> next == null ? Future.succeededFuture(false) : apply(next))
        .eventually(() -> {
          checking.set(false);
          return Future.succeededFuture();
        });
  }

  private Future<Boolean> apply(TlsMaterial next) {
    Future<Boolean> all = Future.succeededFuture(true);
    for (HttpServer s : servers) {
      all = all.compose(ok -> s.updateSSLOptions(next.serverOptions(), true));
    }
    return all.map(ok -> {
      TlsMaterial old = current;
      current = next;
      applied.increment();
      log.atInfo().addKeyValue("subject", next.subject()).addKeyValue("notAfter", next.leaf().getNotAfter().toInstant())
          .addKeyValue("previousNotAfter", old.leaf().getNotAfter().toInstant()).addKeyValue("servers", servers.size())
          .log("TLS certificate reloaded; new connections get it, open ones keep theirs");
      return true;
    }).recover(e -> {
      refused.increment();
      log.atWarn().setCause(e).log("TLS certificate reload failed on a server; it keeps the previous certificate");
      return Future.succeededFuture(false);
    });
  }

  @Override
  public void close() {
    vertx.cancelTimer(timer);
  }
}
