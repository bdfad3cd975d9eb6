package dev.sluice.broker.changefeed;

import dev.sluice.dispatcher.BrokerAddress;
import dev.sluice.dispatcher.changefeed.InitialLoad;
import dev.sluice.dispatcher.changefeed.TableFilter;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The definition of a hosted changefeed as an operator gives it: which brokers, which tables, from
 * when, to which sink. Checked when built (errors name the field); the same JSON shape is accepted by
 * the admin API and persisted in the changefeed store.
 *
 * <pre>{@code
 * ChangefeedSpec spec = new ChangefeedSpec(List.of(), List.of("public.*"), List.of("public.tmp_*"), 0,
 *     SinkUri.parse("jsonl:file:/tmp/out.jsonl"), ChangefeedOptions.defaults());
 * }</pre>
 *
 * @param brokers broker gRPC addresses {@code host:port}; empty = this server
 * @param include table rules ({@code schema.table} with globs {@code *} and {@code ?}), at least one
 * @param exclude table rules that win over {@code include}
 * @param startTs exclusive start ts (changes with a larger commit ts are delivered)
 * @param sink    where changes go
 * @param options tuning
 * @param initialLoad whether the tables' existing rows are read first ({@code initial_load}: {@code snapshot},
 *                the default of a new changefeed, or {@code none})
 */
public record ChangefeedSpec(List<String> brokers, List<String> include, List<String> exclude, long startTs,
    SinkUri sink, ChangefeedOptions options, InitialLoad initialLoad) {

  /** Keys of the definition in JSON. */
  public static final Set<String> KEYS = Set.of("brokers", "include", "exclude", "start_ts", "sink_uri", "options",
      "initial_load");

  /** A new changefeed loads existing rows first, as a CDC user expects (Debezium's {@code snapshot.mode=initial}). */
  public static final InitialLoad DEFAULT_INITIAL_LOAD = InitialLoad.SNAPSHOT;

  /** A definition with the default initial load ({@link #DEFAULT_INITIAL_LOAD}). */
  public ChangefeedSpec(List<String> brokers, List<String> include, List<String> exclude, long startTs, SinkUri sink,
      ChangefeedOptions options) {
    this(brokers, include, exclude, startTs, sink, options, DEFAULT_INITIAL_LOAD);
  }

  public ChangefeedSpec {
    brokers = List.copyOf(Objects.requireNonNull(brokers, "brokers"));
    include = List.copyOf(Objects.requireNonNull(include, "include"));
    exclude = List.copyOf(Objects.requireNonNull(exclude, "exclude"));
    Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(initialLoad, "initialLoad");
    for (String b : brokers) {
      try {
        BrokerAddress.parse(b);
      } catch (IllegalArgumentException e) {
        throw InvalidChangefeedException.field("brokers", "must hold host:port addresses: " + e.getMessage());
      }
    }
    if (include.isEmpty()) {
      throw InvalidChangefeedException.field("include", "needs at least one rule such as \"public.*\"");
    }
    for (String rule : include) {
      checkRule("include", rule);
    }
    for (String rule : exclude) {
      checkRule("exclude", rule);
    }
    if (startTs < 0) {
      throw InvalidChangefeedException.field("start_ts", "must be >= 0, got " + startTs);
    }
  }

  private static void checkRule(String field, String rule) {
    if (rule == null || rule.startsWith("!")) {
      throw InvalidChangefeedException.field(field, "rules are schema.table globs without '!', got \"" + rule + "\"");
    }
    try {
      TableFilter.of(rule);
    } catch (IllegalArgumentException e) {
      throw InvalidChangefeedException.field(field, e.getMessage());
    }
  }

  /** The dispatcher library's filter: the includes, and the excludes as {@code !rule}. */
  public TableFilter filter() {
    List<String> rules = new ArrayList<>(include);
    for (String e : exclude) {
      rules.add("!" + e);
    }
    return TableFilter.of(rules);
  }

  /**
   * Reads a definition as the API gets it; {@code startTs} is used when the JSON has no {@code start_ts}, and a
   * missing {@code initial_load} is {@link #DEFAULT_INITIAL_LOAD}.
   *
   * @throws InvalidChangefeedException naming the first bad field (unknown keys were refused by
   *     {@code json}'s {@link StrictJson#of} already)
   */
  public static ChangefeedSpec fromJson(StrictJson json, long startTs) {
    return fromJson(json, startTs, DEFAULT_INITIAL_LOAD);
  }

  /**
   * Reads a definition whose missing {@code initial_load} is {@code absent}: a stored record written before the
   * field existed reads as {@link InitialLoad#NONE} (that changefeed never loaded rows, and a restart must not
   * start now).
   */
  public static ChangefeedSpec fromJson(StrictJson json, long startTs, InitialLoad absent) {
    return new ChangefeedSpec(json.strings("brokers", List.of()), json.strings("include", List.of()),
        json.strings("exclude", List.of()), json.longValue("start_ts", startTs), SinkUri.parse(json.requiredString(
            "sink_uri")), ChangefeedOptions.fromJson(json.object("options", "option", ChangefeedOptions.KEYS)),
        initialLoad(json.string("initial_load", null), absent));
  }

  /** {@code initial_load}'s text: "snapshot" or "none"; {@code absent} when not given. */
  static InitialLoad initialLoad(String text, InitialLoad absent) {
    if (text == null) {
      return absent;
    }
    return switch (text) {
      case "snapshot" -> InitialLoad.SNAPSHOT;
      case "none" -> InitialLoad.NONE;
      default -> throw InvalidChangefeedException.field("initial_load", "must be \"snapshot\" (read the rows the "
          + "tables hold first) or \"none\" (changes after start_ts only), got \"" + text + "\"");
    };
  }

  /** The JSON text of {@code load}. */
  static String text(InitialLoad load) {
    return load.name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Refuses a change of {@code initial_load} by an update: it is decided when a changefeed is created (its
   * tables' snapshots are recorded in the sink); {@code POST .../snapshot} reads tables again.
   */
  public ChangefeedSpec keepingInitialLoadOf(ChangefeedSpec old, boolean given) {
    if (given && initialLoad != old.initialLoad) {
      throw InvalidChangefeedException.field("initial_load", "cannot be updated (it is \"" + text(old.initialLoad)
          + "\"): it applies when a changefeed is created; POST /api/v1/changefeeds/{id}/snapshot reads tables again");
    }
    return new ChangefeedSpec(brokers, include, exclude, startTs, sink, options, old.initialLoad);
  }

  /**
   * This definition with the keys of {@code patch} replaced (PATCH semantics); {@code start_ts} is not
   * one of them, because an update resumes from the checkpoint.
   */
  public ChangefeedSpec patchedWith(StrictJson patch) {
    if (patch.has("start_ts")) {
      throw InvalidChangefeedException.field("start_ts", "cannot be updated: an update resumes every table from"
          + " the changefeed's checkpoint");
    }
    StrictJson opts = patch.object("options", "option", ChangefeedOptions.KEYS);
    ChangefeedOptions o = options;
    if (opts != null) {
      JsonObject merged = options.toJson();
      merged.mergeIn(optsJson(patch));
      o = ChangefeedOptions.fromJson(StrictJson.of(merged, "option", ChangefeedOptions.KEYS, "options."));
    }
    return new ChangefeedSpec(patch.strings("brokers", brokers), patch.strings("include", include),
        patch.strings("exclude", exclude), startTs,
        patch.has("sink_uri") ? SinkUri.parse(patch.requiredString("sink_uri")) : sink, o,
        initialLoad(patch.string("initial_load", null), initialLoad)).keepingInitialLoadOf(this,
        patch.has("initial_load"));
  }

  private static JsonObject optsJson(StrictJson patch) {
    return patch.rawObject("options");
  }

  /** The persisted form, with the sink URI as given (credentials included). */
  public JsonObject toJson() {
    return new JsonObject().put("brokers", new JsonArray(brokers)).put("include", new JsonArray(include))
        .put("exclude", new JsonArray(exclude)).put("start_ts", startTs).put("sink_uri", sink.uri())
        .put("options", options.toJson()).put("initial_load", text(initialLoad));
  }

  /** The form the API shows: the sink URI without passwords. */
  public JsonObject toPublicJson() {
    return toJson().put("sink_uri", sink.redacted());
  }

  public ChangefeedSpec withSink(SinkUri s) {
    return new ChangefeedSpec(brokers, include, exclude, startTs, s, options, initialLoad);
  }

  public ChangefeedSpec withStartTs(long ts) {
    return new ChangefeedSpec(brokers, include, exclude, ts, sink, options, initialLoad);
  }
}
