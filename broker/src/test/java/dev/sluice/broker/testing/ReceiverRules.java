package dev.sluice.broker.testing;

import dev.sluice.api.pgtext.CopyText;
import dev.sluice.api.DispatcherId;
import dev.sluice.api.v1.BrokerMessage;
import dev.sluice.api.v1.DataEvent;
import dev.sluice.api.v1.DmlBatch;
import dev.sluice.api.v1.Handshake;
import dev.sluice.api.v1.Resolved;
import dev.sluice.api.v1.RowChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The receiver rules of PROTOCOL.md as a checker over everything a broker sends to one collector: per
 * dispatcher, a handshake (seq 1, table info present, epoch above the last) opens each epoch; data
 * events of that epoch follow as seq + 1 without gaps, ordered by commit ts with DDL before and sync
 * points after the DML of their ts, except that a DDL of an open transaction comes between its fragments
 * at its row seq (ddl-in-txn); fragments of one transaction are consecutive and numbered; a
 * Resolved carries exactly the last seq, never lands inside a transaction, never moves back, and no
 * later event has a commit ts at or below it. Also collects the delivered rows of the last epoch.
 */
public final class ReceiverRules {

  private static final int DDL = 0;
  private static final int DML = 1;
  private static final int SYNC = 2;

  private static final class Stream {
    long epoch = -1;
    /** Row seq of the last row or DDL of the open transaction. */
    long lastRowSeq = -1;
    long lastSeq;
    long startTs;
    long keyTs;
    int keyKind = -1;
    long openTxn = -1;
    int nextFragment;
    long resolvedTs;
    final List<RowChange> rows = new ArrayList<>();
    final List<Long> rowTs = new ArrayList<>();
    int ddls;
    int syncPoints;
    int handshakes;
    final List<dev.sluice.api.v1.SnapshotDone> snapshotDones = new ArrayList<>();
  }

  private final Map<DispatcherId, Stream> streams = new HashMap<>();
  private final List<String> violations = new ArrayList<>();

  public void accept(BrokerMessage m) {
    switch (m.getKindCase()) {
      case HANDSHAKE -> onHandshake(m.getHandshake());
      case EVENT_BATCH -> {
        DispatcherId id = DispatcherId.fromProto(m.getEventBatch().getDispatcherId());
        for (DataEvent e : m.getEventBatch().getEventsList()) {
          onEvent(id, m.getEventBatch().getEpoch(), e);
        }
      }
      case RESOLVED_BATCH -> m.getResolvedBatch().getResolvedList().forEach(this::onResolved);
      default -> { }
    }
  }

  private void onHandshake(Handshake h) {
    DispatcherId id = DispatcherId.fromProto(h.getDispatcherId());
    Stream s = streams.computeIfAbsent(id, k -> new Stream());
    if (h.getEpoch() <= s.epoch) {
      violation(id, "handshake epoch " + h.getEpoch() + " is not above " + s.epoch);
    }
    if (h.getSeq() != 1) {
      violation(id, "handshake seq " + h.getSeq() + " is not 1");
    }
    if (!h.hasTableInfo() || h.getTableInfo().getTableId() == 0 || h.getTableInfo().getColumnsCount() == 0) {
      violation(id, "handshake of epoch " + h.getEpoch() + " has no table info");
    }
    s.epoch = h.getEpoch();
    s.lastSeq = 1;
    s.startTs = h.getStartTs();
    s.keyTs = h.getStartTs();
    s.keyKind = SYNC;
    s.openTxn = -1;
    s.resolvedTs = h.getStartTs();
    s.rows.clear();
    s.rowTs.clear();
    s.snapshotDones.clear();
    s.handshakes++;
    if (h.hasResumeCursor()) {
      s.openTxn = h.getResumeCursor().getCommitTs();
      s.keyTs = s.openTxn;
      s.keyKind = DML;
      s.nextFragment = 0;
    }
  }

  private void onEvent(DispatcherId id, long epoch, DataEvent e) {
    Stream s = streams.get(id);
    if (s == null || s.epoch < 0) {
      violation(id, "event before any handshake");
      return;
    }
    if (epoch != s.epoch) {
      violation(id, "event of epoch " + epoch + " after the handshake of epoch " + s.epoch);
      return;
    }
    if (e.getSeq() != s.lastSeq + 1) {
      violation(id, "seq " + e.getSeq() + " does not follow " + s.lastSeq);
    }
    s.lastSeq = e.getSeq();
    switch (e.getPayloadCase()) {
      case DML -> onDml(id, s, e.getDml());
      case DDL -> {
        if (s.openTxn == e.getDdl().getCommitTs()) {   // inside its transaction, after the rows before it
          if (e.getDdl().getRowSeq() <= s.lastRowSeq) {
            violation(id, "DDL at " + e.getDdl().getCommitTs() + "/" + e.getDdl().getRowSeq() + " after row "
                + s.lastRowSeq + " of its transaction");
          }
          s.lastRowSeq = e.getDdl().getRowSeq();
        } else if (s.keyKind == DDL && s.keyTs == e.getDdl().getCommitTs()) {   // several DDLs of one transaction
          if (e.getDdl().getRowSeq() <= s.lastRowSeq) {
            violation(id, "DDL at " + e.getDdl().getCommitTs() + "/" + e.getDdl().getRowSeq() + " after DDL "
                + s.lastRowSeq + " of its transaction");
          }
          s.lastRowSeq = e.getDdl().getRowSeq();
        } else {
          order(id, s, e.getDdl().getCommitTs(), DDL);
          s.lastRowSeq = e.getDdl().getRowSeq();
        }
        if (!e.getDdl().hasTableInfoAfter()) {
          violation(id, "DDL at " + e.getDdl().getCommitTs() + " has no table info");
        }
        s.ddls++;
      }
      case SYNC_POINT -> {
        order(id, s, e.getSyncPoint().getTs(), SYNC);
        s.syncPoints++;
      }
      case SNAPSHOT_DONE -> {
        if (s.openTxn >= 0) {
          violation(id, "SnapshotDone inside the transaction " + s.openTxn);
        }
        if (!s.snapshotDones.isEmpty()) {
          violation(id, "a second SnapshotDone in epoch " + s.epoch);
        }
        s.snapshotDones.add(e.getSnapshotDone());
      }
      default -> violation(id, "data event without payload at seq " + e.getSeq());
    }
  }

  private void onDml(DispatcherId id, Stream s, DmlBatch b) {
    long ts = b.getCommitTs();
    if (s.openTxn >= 0) {
      if (ts != s.openTxn) {
        violation(id, "transaction " + ts + " starts while fragments of " + s.openTxn + " are open");
      } else if (b.getFragmentIndex() != s.nextFragment) {
        violation(id, "fragment " + b.getFragmentIndex() + " of " + ts + " does not follow " + (s.nextFragment - 1));
      }
    } else {
      boolean afterItsDdl = s.keyKind == DDL && s.keyTs == ts;
      order(id, s, ts, DML);
      if (!afterItsDdl) {
        s.lastRowSeq = -1;
      }
      if (b.getFragmentIndex() != 0) {
        violation(id, "transaction " + ts + " starts at fragment " + b.getFragmentIndex());
      }
    }
    if (ts <= s.resolvedTs && !(s.openTxn == ts)) {
      violation(id, "DML at " + ts + " arrived after Resolved " + s.resolvedTs);
    }
    s.openTxn = b.getLastFragment() ? -1 : ts;
    s.nextFragment = b.getFragmentIndex() + 1;
    for (RowChange r : b.hasCopyRows() ? CopyText.rowChanges(b.getCopyRows()) : b.getRowsList()) {
      s.rows.add(r);
      s.rowTs.add(ts);
      s.lastRowSeq = r.getRowSeq();
    }
  }

  private void order(DispatcherId id, Stream s, long ts, int kind) {
    if (ts < s.keyTs || (ts == s.keyTs && kind <= s.keyKind)) {
      violation(id, "event " + kindName(kind) + "@" + ts + " after " + kindName(s.keyKind) + "@" + s.keyTs);
    }
    if (ts <= s.resolvedTs && ts > s.startTs) {
      violation(id, kindName(kind) + "@" + ts + " arrived after Resolved " + s.resolvedTs);
    }
    s.keyTs = ts;
    s.keyKind = kind;
  }

  private void onResolved(Resolved r) {
    DispatcherId id = DispatcherId.fromProto(r.getDispatcherId());
    Stream s = streams.get(id);
    if (s == null || r.getEpoch() != s.epoch) {
      violation(id, "Resolved of epoch " + r.getEpoch() + " outside its epoch");
      return;
    }
    if (r.getLastSeq() != s.lastSeq) {
      violation(id, "Resolved last_seq " + r.getLastSeq() + " but the last seq sent was " + s.lastSeq);
    }
    if (s.openTxn >= 0) {
      violation(id, "Resolved " + r.getTs() + " inside the fragmented transaction " + s.openTxn);
    }
    if (r.getTs() < s.resolvedTs) {
      violation(id, "Resolved moved back from " + s.resolvedTs + " to " + r.getTs());
    }
    if (r.getTs() < s.keyTs) {
      violation(id, "Resolved " + r.getTs() + " below an event already sent at " + s.keyTs);
    }
    s.resolvedTs = r.getTs();
  }

  private static String kindName(int k) {
    return switch (k) {
      case DDL -> "DDL";
      case DML -> "DML";
      case SYNC -> "SYNC";
      default -> "START";
    };
  }

  private void violation(DispatcherId id, String what) {
    violations.add(id + ": " + what);
  }

  public List<String> violations() {
    return List.copyOf(violations);
  }

  public long resolvedTs(DispatcherId id) {
    Stream s = streams.get(id);
    return s == null ? -1 : s.resolvedTs;
  }

  public long epoch(DispatcherId id) {
    Stream s = streams.get(id);
    return s == null ? -1 : s.epoch;
  }

  /** Rows delivered in the current epoch, in order. */
  public List<RowChange> rows(DispatcherId id) {
    Stream s = streams.get(id);
    return s == null ? List.of() : List.copyOf(s.rows);
  }

  public List<Long> rowCommitTs(DispatcherId id) {
    Stream s = streams.get(id);
    return s == null ? List.of() : List.copyOf(s.rowTs);
  }

  /** The SnapshotDone of the current epoch, or null before it came. */
  public dev.sluice.api.v1.SnapshotDone snapshotDone(DispatcherId id) {
    Stream s = streams.get(id);
    return s == null || s.snapshotDones.isEmpty() ? null : s.snapshotDones.get(0);
  }

  public int ddls(DispatcherId id) {
    return streams.get(id).ddls;
  }

  public int syncPoints(DispatcherId id) {
    return streams.get(id).syncPoints;
  }

  public int handshakes(DispatcherId id) {
    Stream s = streams.get(id);
    return s == null ? 0 : s.handshakes;
  }

  public long lastSeq(DispatcherId id) {
    return streams.get(id).lastSeq;
  }
}
