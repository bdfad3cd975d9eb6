package dev.sluice.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runtime changes survive a restart while the static value they overrode is unchanged, and give way to
 * a changed one; the view names every value's source and never shows a secret.
 */
class LiveConfigTest {

  private static final String CONCURRENCY = "eventService.limits.scanConcurrency";

  @TempDir
  Path dir;

  private static BrokerConfigFactory.Built built(Map<String, String> env) {
    return BrokerConfigFactory.build(ConfigResolver.resolve(List.of(), env, List.of()).settings());
  }

  private LiveConfig start(Map<String, String> env) {
    BrokerConfigFactory.Built b = built(env);
    return LiveConfig.start(b.config(), b.settings(), dir, new SimpleMeterRegistry());
  }

  /** One restart: the runtime value set against {@code staticBefore}, then a start with {@code staticAfter}. */
  static Stream<Arguments> restarts() {
    return Stream.of(
        Arguments.of("static value unchanged (default): the runtime value stays", null, null, 7, "runtime"),
        Arguments.of("static value unchanged (env): the runtime value stays", "5", "5", 7, "runtime"),
        Arguments.of("the env now sets another value: it wins", null, "5", 5, "env"),
        Arguments.of("the env value was removed: the default wins", "5", null, -1, "default"),
        Arguments.of("the env value changed: the new one wins", "5", "6", 6, "env"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("restarts")
  void aRuntimeValueOutlivesARestartUntilItsStaticValueChanges(String name, String staticBefore, String staticAfter,
      int expected, String source) {
    Map<String, String> before = staticBefore == null ? Map.of() : Map.of("SLUICE_EVENT_SERVICE_LIMITS_SCAN_CONCURRENCY",
        staticBefore);
    Map<String, String> after = staticAfter == null ? Map.of() : Map.of("SLUICE_EVENT_SERVICE_LIMITS_SCAN_CONCURRENCY",
        staticAfter);
    LiveConfig first = start(before);
    LiveConfig.Plan p = first.plan(new JsonObject().put("scanConcurrency", 7));
    persist(p);
    first.commit(p);
    assertThat(first.limits().scanConcurrency()).isEqualTo(7);

    LiveConfig second = start(after);
    int want = expected < 0 ? built(Map.of()).config().serve().eventService().limits().scanConcurrency() : expected;
    assertThat(second.limits().scanConcurrency()).isEqualTo(want);
    assertThat(second.effective().serve().eventService().limits().scanConcurrency()).isEqualTo(want);
    JsonObject entry = second.view(second.limits()).getJsonObject("settings").getJsonObject(CONCURRENCY);
    assertThat(entry.getString("source")).isEqualTo(source);
    assertThat(entry.getBoolean("runtime")).isTrue();
    // a dropped runtime value is gone from the file too
    assertThat(RuntimeOverrides.load(dir).entries().containsKey(CONCURRENCY)).isEqualTo(source.equals("runtime"));
  }

  private void persist(LiveConfig.Plan p) {
    try {
      p.overrides().save(dir);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void nullOrTheStaticValueRemovesTheRuntimeValue() {
    LiveConfig live = start(Map.of("SLUICE_EVENT_SERVICE_LIMITS_SCAN_CONCURRENCY", "5"));
    LiveConfig.Plan set = live.plan(new JsonObject().put(CONCURRENCY, 9).put("maxDispatchers", 10));
    live.commit(set);
    assertThat(live.overrides().entries()).containsOnlyKeys(CONCURRENCY, "eventService.limits.maxDispatchers");
    assertThat(live.overrides().entries().get(CONCURRENCY).base()).isEqualTo(5);
    live.commit(live.plan(new JsonObject().put("scanConcurrency", 5).putNull("maxDispatchers")));
    assertThat(live.overrides().entries()).isEmpty();
    JsonObject entry = live.view(live.limits()).getJsonObject("settings").getJsonObject(CONCURRENCY);
    assertThat(entry.getString("source")).isEqualTo("env");
    assertThat(entry.getString("origin")).isEqualTo("SLUICE_EVENT_SERVICE_LIMITS_SCAN_CONCURRENCY");
  }

  @Test
  void aPatchOfAnUnknownFixedOrBadKeyIsRefusedAndChangesNothing() {
    LiveConfig live = start(Map.of());
    assertThatThrownBy(() -> live.plan(new JsonObject().put("scanConcurency", 3)))
        .hasMessageStartingWith("unknown runtime setting 'scanConcurency'; did you mean scanConcurrency?");
    assertThatThrownBy(() -> live.plan(new JsonObject().put("eventService.gcRetention", 3)))
        .hasMessageContaining("eventService.gcRetention is fixed at start")
        .hasMessageContaining("SLUICE_EVENT_SERVICE_GC_RETENTION");
    assertThatThrownBy(() -> live.plan(new JsonObject().put("scanConcurrency", 0)))
        .hasMessageContaining("scanConcurrency must be in [1, 1024], got 0");
    assertThatThrownBy(() -> live.plan(new JsonObject().put("scanConcurrency", "3")))
        .hasMessageContaining("scanConcurrency must be an integer, got 3");
    assertThat(live.overrides().entries()).isEmpty();
  }

  @Test
  void aKeptValueThatNoLongerAppliesIsDroppedAtStart() throws IOException {
    new RuntimeOverrides(Map.of(
        "eventService.limits.gone", new RuntimeOverrides.Entry(1, 2, "t"),
        "eventService.gcRetention", new RuntimeOverrides.Entry(1, 2, "t"),
        CONCURRENCY, new RuntimeOverrides.Entry(100_000, built(Map.of()).config().serve().eventService().limits()
            .scanConcurrency(), "t"))).save(dir);
    LiveConfig live = start(Map.of());
    assertThat(live.overrides().entries()).isEmpty();
    assertThat(RuntimeOverrides.load(dir).entries()).isEmpty();
  }

  @Test
  void theViewShowsEveryKeyWithItsSourceAndMasksTheSecret() {
    BrokerConfigFactory.Built b = built(Map.of("SLUICE_UPSTREAM_URL",
        "jdbc:postgresql://db/app?user=sluice&password=in-url", "SLUICE_UPSTREAM_PASSWORD", "hunter2"));
    LiveConfig live = LiveConfig.preview(b.config(), b.settings(), dir);
    JsonObject view = live.view(live.limits());
    JsonObject settings = view.getJsonObject("settings");
    assertThat(settings.fieldNames()).hasSize(ConfigKeys.all().size());
    assertThat(settings.getJsonObject("upstream.password").getString("value")).isEqualTo("***");
    assertThat(settings.getJsonObject("upstream.password").getString("origin")).isEqualTo("SLUICE_UPSTREAM_PASSWORD");
    assertThat(settings.getJsonObject("eventService.gcRetention").getString("value")).isEqualTo("1h");
    assertThat(settings.getJsonObject("eventService.gcRetention").getString("source")).isEqualTo("default");
    assertThat(settings.getJsonObject("capture.slot").getString("value")).isEqualTo("sluice_node_1");
    assertThat(settings.getJsonObject("upstream.url").getString("value"))
        .isEqualTo("jdbc:postgresql://db/app?user=sluice&password=***");
    assertThat(view.encode()).doesNotContain("hunter2").doesNotContain("in-url");
    assertThat(view.getJsonObject("limits").getInteger("scanConcurrency")).isEqualTo(live.limits().scanConcurrency());
  }

  @Test
  void aTornOrForeignRuntimeFileStopsTheStartNamingIt() throws IOException {
    Files.writeString(dir.resolve(RuntimeOverrides.FILE_NAME), "{not json");
    assertThatThrownBy(() -> start(Map.of())).hasMessageContaining(dir.resolve("runtime.json").toString())
        .hasMessageContaining("move it away");
  }
}
