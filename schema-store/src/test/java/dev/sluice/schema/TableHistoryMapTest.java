package dev.sluice.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class TableHistoryMapTest {

  /** Puts (inserts and replacements, growing past several resizes) agree with a HashMap. */
  @Property(tries = 200)
  void agreesWithAHashMap(@ForAll @Size(max = 400) List<@LongRange(min = 1, max = 600) Long> ids) {
    TableHistoryMap map = new TableHistoryMap();
    Map<Long, TableHistory> model = new HashMap<>();
    for (long id : ids) {
      TableHistory h = TableHistory.empty(id).withDdl(model.size() + 1L);   // a new instance per put
      map.put(h);
      model.put(id, h);
    }
    assertThat(map.size()).isEqualTo(model.size());
    for (long id = 0; id <= 601; id++) {
      assertThat(map.get(id)).as("id %d", id).isSameAs(model.get(id));
    }
    assertThat(map.values()).containsExactlyInAnyOrderElementsOf(model.values());
  }
}
