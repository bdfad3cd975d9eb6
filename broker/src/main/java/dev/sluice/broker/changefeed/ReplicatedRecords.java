package dev.sluice.broker.changefeed;

import dev.sluice.broker.cluster.ClusterMap;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the changefeed records this node knows in step with its {@link ChangefeedStore} and the cluster's
 * replicated copy ({@link ClusterMap}). A write here goes to both, stamped with its writer's token and the
 * next revision; a copy that reached this node from the cluster is accepted as it is. Copies are ordered
 * by {@link ChangefeedRecord#supersedes}; deciding which copy to accept is the caller's.
 *
 * <p>Concurrency: written on the supervisor's thread only; {@link #get}, {@link #values} and
 * {@link #asMap} are readable anywhere (the GC thread, the meters, the admin API).
 *
 * <pre>{@code
 * ReplicatedRecords records = new ReplicatedRecords(store, clusterMap);
 * records.load();
 * ChangefeedRecord written = records.write(r.withCheckpoint(reached, nowMs), token, true);
 * }</pre>
 */
final class ReplicatedRecords {

  // the supervisor's logger, as before the split: the log lines and their filters stay the same
  private static final Logger log = LoggerFactory.getLogger(ChangefeedSupervisor.class);

  private final ChangefeedStore store;
  private final ClusterMap replica;
  // written on the supervisor's thread only, readable anywhere
  private final Map<String, ChangefeedRecord> records = new ConcurrentHashMap<>();
  /** Held here: a gauge keeps only a weak reference to what it reads. */
  private final Map<String, ChangefeedRecord> view = Collections.unmodifiableMap(records);
  private final List<Consumer<ChangefeedRecord>> storedListeners = new CopyOnWriteArrayList<>();
  private final List<Runnable> acceptedListeners = new CopyOnWriteArrayList<>();

  ReplicatedRecords(ChangefeedStore store, ClusterMap replica) {
    this.store = store;
    this.replica = replica;
  }

  /**
   * Loads every record of the store and offers each to the cluster's copy: a copy of the cluster that is
   * older, or missing after a restart of the whole cluster, is replaced; a newer one replaces this node's.
   * Records only the cluster has are stored here too (supervisor thread).
   */
  void load() {
    for (ChangefeedRecord r : store.all()) {
      records.put(r.id(), r);
      Optional<ChangefeedRecord> shared = replicated(r.id());
      if (shared.isEmpty() || r.supersedes(shared.get())) {
        replica.put(r.id(), r.toJson().encode());   // the cluster's copy was older, or lost with the whole cluster
      } else if (shared.get().supersedes(r)) {
        records.put(r.id(), shared.get());
        store.put(shared.get(), true);
      }
      log.atInfo().addKeyValue("changefeedId", r.id()).addKeyValue("generation", r.generation())
          .addKeyValue("state", r.state()).log("changefeed record loaded");
    }
    for (ChangefeedRecord r : allReplicated()) {
      if (!records.containsKey(r.id())) {
        records.put(r.id(), r);
        store.put(r, true);
      }
    }
  }

  /** This node's record of {@code id}, or null. */
  ChangefeedRecord get(String id) {
    return records.get(id);
  }

  /** This node's record of {@code id}, or an absent one. */
  ChangefeedRecord current(String id) {
    return records.getOrDefault(id, ChangefeedRecord.absent(id));
  }

  /** This node's records (a live view). */
  Collection<ChangefeedRecord> values() {
    return records.values();
  }

  /** This node's records by id (a live, unmodifiable view, for the meters). */
  Map<String, ChangefeedRecord> asMap() {
    return view;
  }

  /** The newest of this node's record of {@code id} and the cluster's copy, or null when neither exists. */
  ChangefeedRecord newest(String id) {
    ChangefeedRecord latest = records.get(id);
    Optional<ChangefeedRecord> shared = replicated(id);
    if (shared.isPresent() && (latest == null || shared.get().supersedes(latest))) {
      latest = shared.get();
    }
    return latest;
  }

  /**
   * Every record of the cluster as it stands now: this node's copies, each replaced by the cluster's where
   * that one is newer or this node has not seen it yet (replication reaches {@link #get} after a hop), so
   * the one-writer rule of a file sink holds across the nodes (supervisor thread).
   */
  Collection<ChangefeedRecord> cluster() {
    Map<String, ChangefeedRecord> all = new HashMap<>(records);
    for (ChangefeedRecord r : allReplicated()) {
      ChangefeedRecord mine = all.get(r.id());
      if (mine == null || r.supersedes(mine)) {
        all.put(r.id(), r);
      }
    }
    return all.values();
  }

  /**
   * Writes {@code r} here and in the cluster, stamped with writer {@code token} ({@code r}'s own when null)
   * and the revision after the newer of the stored one and {@code r}'s; returns what was written
   * (supervisor thread).
   */
  ChangefeedRecord write(ChangefeedRecord r, Long token, boolean sync) {
    ChangefeedRecord before = records.get(r.id());
    long revision = before == null ? r.revision() : Math.max(before.revision(), r.revision());
    ChangefeedRecord stamped = new ChangefeedRecord(r.id(), r.generation(), r.state(), r.spec(), r.checkpoint(),
        r.keptMeta(), r.lastError(), r.retryCount(), r.nextRetryAtMs(), r.deletion(), r.createdAtMs(), r.updatedAtMs(),
        r.gc(), token != null ? token : r.writerToken(), revision + 1);
    store.put(stamped, sync);
    records.put(r.id(), stamped);
    replica.put(r.id(), stamped.toJson().encode());
    storedListeners.forEach(l -> l.accept(stamped));
    return stamped;
  }

  /**
   * Takes {@code r}, a copy another node (or this one) wrote, as this node's record: stored, synced when its
   * state or generation changed (supervisor thread).
   */
  void accept(ChangefeedRecord r) {
    ChangefeedRecord before = records.put(r.id(), r);
    store.put(r, before == null || before.state() != r.state() || before.generation() != r.generation());
    storedListeners.forEach(l -> l.accept(r));
    acceptedListeners.forEach(Runnable::run);
  }

  /** Calls {@code listener} with every record written or accepted here, on the supervisor's thread. */
  void onStored(Consumer<ChangefeedRecord> listener) {
    storedListeners.add(listener);
  }

  /** Calls {@code listener} after a record written elsewhere reached this node. */
  void onAccepted(Runnable listener) {
    acceptedListeners.add(listener);
  }

  private Optional<ChangefeedRecord> replicated(String id) {
    return replica.get(id).map(j -> ChangefeedRecord.fromJson(new JsonObject(j)));
  }

  private Collection<ChangefeedRecord> allReplicated() {
    List<ChangefeedRecord> out = new ArrayList<>();
    replica.snapshot().values().forEach(j -> out.add(ChangefeedRecord.fromJson(new JsonObject(j))));
    return out;
  }
}
